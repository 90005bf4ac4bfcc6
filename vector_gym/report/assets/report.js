// vector_gym report: sortable tables (click a header; numbers sort by data-v).
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var asc = th.dataset.dir !== "asc";
      table.querySelectorAll("thead th").forEach(function (h) { delete h.dataset.dir; });
      th.dataset.dir = asc ? "asc" : "desc";
      var body = table.tBodies[0];
      var key = function (row) {
        var cell = row.cells[col];
        var v = cell.dataset.v !== undefined ? cell.dataset.v : cell.textContent.trim();
        var n = parseFloat(v);
        return isNaN(n) ? [1, v] : [0, n];
      };
      Array.from(body.rows)
        .map(function (r) { return [key(r), r]; })
        .sort(function (a, b) {
          var x = a[0], y = b[0];
          var c = x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
          return asc ? c : -c;
        })
        .forEach(function (p) { body.appendChild(p[1]); });
    });
  });
});
