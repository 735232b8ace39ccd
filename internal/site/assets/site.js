// Filters the scenarios table by the selects and checkboxes above it; reloads the page when
// the records change, when it is served by rookgen ui (a static copy has no _version).
(function () {
  var form = document.getElementById('filters');
  if (form) {
    var apply = function () {
      var shown = 0;
      document.querySelectorAll('#scenarios tr.row').forEach(function (row) {
        var keep = true;
        form.querySelectorAll('select[data-filter]').forEach(function (sel) {
          var want = sel.value, key = sel.dataset.filter;
          if (!want) return;
          var have = row.dataset[key] || '';
          if (key === 'feature' ? have.split(' ').indexOf(want) < 0 : have !== want) keep = false;
        });
        form.querySelectorAll('input[data-flag]').forEach(function (box) {
          if (box.checked && row.dataset[box.dataset.flag] !== 'true') keep = false;
        });
        row.classList.toggle('hidden', !keep);
        if (keep) shown++;
      });
      document.getElementById('shown').textContent = shown + ' shown';
    };
    form.addEventListener('change', apply);
    apply();
  }
  if (location.protocol === 'http:' || location.protocol === 'https:') {
    var up = document.querySelector('link[rel=stylesheet]').getAttribute('href').replace('site.css', '');
    var seen = null;
    var poll = function () {
      fetch(up + '_version', {cache: 'no-store'}).then(function (r) {
        if (!r.ok) return null;
        return r.text();
      }).then(function (v) {
        if (v === null) return;
        if (seen !== null && v !== seen) location.reload();
        seen = v;
        setTimeout(poll, 2000);
      }).catch(function () {});
    };
    poll();
  }
})();
