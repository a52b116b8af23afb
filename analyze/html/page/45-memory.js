/* Device memory: each process's live device bytes over time with its peak marked, and the live
 * set at the peak of the process with the highest one as a flame graph by call stack. */
(function () {
	var H = 160, PAD_L = 70, PAD_B = 18;

	function processChart(p, endNs) {
		var box = GR.el('div', {class: 'memchart', 'data-pid': p.pid,
					'aria-label': 'device memory of pid ' + p.pid});
		GR.later(function () {
			var width = Math.min(GR.widthOf(box, 700), 1100), plotW = width - PAD_L - 8;
			var pts = p.points, last = Math.max(endNs, pts.length ? pts[pts.length - 1][0] : 0);
			var x = function (t) { return PAD_L + (last ? t / last * plotW : 0); };
			var y = function (b) { return 4 + (H - PAD_B - 4) * (1 - (p.peak_bytes ? b / p.peak_bytes : 0)); };
			/* a step line: the bytes hold until the next change */
			var d = 'M' + x(0) + ' ' + y(0), prev = 0;
			pts.forEach(function (pt) {
				d += ' L' + x(pt[0]) + ' ' + y(prev) + ' L' + x(pt[0]) + ' ' + y(pt[1]);
				prev = pt[1];
			});
			d += ' L' + x(last) + ' ' + y(prev);
			var line = GR.svg('path', {class: 'line', d: d});
			line.tipText = 'live device bytes of pid ' + p.pid;
			var peakTip = 'peak ' + GR.bytes(p.peak_bytes) + ' at ' + GR.ns(p.peak_ns) +
				(p.peak_iteration === null ? ' (outside the loop)' :
				 ' (iteration #' + p.peak_iteration + ')');
			var dot = GR.svg('circle', {class: 'dot peak', cx: x(p.peak_ns), cy: y(p.peak_bytes),
						   r: 4, 'data-peak': p.peak_bytes});
			dot.tipText = peakTip;
			var svg = GR.svg('svg', {width: width, height: H}, [
				GR.svg('text', {class: 'muted', x: 0, y: 14}, [GR.bytes(p.peak_bytes)]),
				GR.svg('text', {class: 'muted', x: 0, y: H - PAD_B}, ['0 B']),
				GR.svg('text', {class: 'muted', x: PAD_L, y: H - 4}, ['0']),
				GR.svg('text', {class: 'muted', x: width - 60, y: H - 4}, [GR.ns(last)]),
				line, dot,
				GR.svg('text', {class: 'peaklabel', x: Math.min(x(p.peak_ns) + 6, width - 200),
						y: 14}, [peakTip])]);
			GR.hover(svg);
			box.replaceChildren(svg);
		});
		return GR.el('div', {class: 'chart'}, [
			GR.el('h3', {}, ['pid ' + p.pid + (p.device ? ' device ' + p.device : '') +
				': live device bytes']),
			GR.el('p', {class: 'note'}, [(p.binned ? 'each point the largest of a run of changes; ' : '') +
				GR.bytes(p.outstanding_bytes) + ' outstanding at the end']),
			box]);
	}

	GR.memory = function (mem, report) {
		var box = GR.el('section', {class: 'memory', 'aria-label': 'device memory'});
		var verdict = report && report.memory;
		if (verdict && verdict.verdict)
			box.appendChild(GR.el('p', {class: 'note'}, [verdict.verdict]));
		if (!mem) {
			box.appendChild(GR.el('p', {class: 'note'}, ['no device memory was allocated']));
			return box;
		}
		var endNs = report ? report.wall_ns : 0;
		mem.processes.forEach(function (p) { box.appendChild(processChart(p, endNs)); });
		box.appendChild(GR.el('h3', {}, ['Live at the peak of pid ' + mem.flame.pid + ', by call stack']));
		box.appendChild(GR.flame(mem.flame));
		return box;
	};
})();
