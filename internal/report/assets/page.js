document.getElementById('filter').addEventListener('change', function (e) {
  var want = e.target.value;
  document.querySelectorAll('#scenarios tr.row, section.scenario').forEach(function (el) {
    el.classList.toggle('hidden', want !== 'all' && el.dataset.status !== want);
  });
});
