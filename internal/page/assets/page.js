function applyFilters() {
  var status = document.getElementById('filter').value;
  var owner = document.getElementById('owner-filter').value;
  document.querySelectorAll('#scenarios tr.row, section.scenario').forEach(function (el) {
    var hide = (status !== 'all' && el.dataset.status !== status) || (owner !== 'all' && el.dataset.owner !== owner);
    el.classList.toggle('hidden', hide);
  });
}
document.getElementById('filter').addEventListener('change', applyFilters);
document.getElementById('owner-filter').addEventListener('change', applyFilters);
