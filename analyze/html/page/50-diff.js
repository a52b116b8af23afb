/* diff: what the text diff names first, then the two sides side by side, with the kernels it
 * names as added, removed or changed coloured in both sides' charts and flame graphs. */
(function () {
	/* kernel name -> 'added' | 'removed' | 'changed' | '' from diff.kernels. */
	function kernelMarks(diff) {
		var m = {};
		(diff.kernels || []).forEach(function (k) {
			m[k.name] = k.status === 'added' || k.status === 'removed' ? k.status :
				k.delta ? 'changed' : '';
		});
		return function (name) { return m[name] || ''; };
	}

	function changes(diff) {
		var box = GR.el('section', {'aria-label': 'changes'});
		box.appendChild(GR.el('ul', {class: 'changes'}, (diff.summary || []).map(function (s) {
			return GR.el('li', {}, [s]);
		})));
		var ks = (diff.kernels || []).map(function (k) {
			return {status: k.status === 'both' ? (k.delta > 0 ? 'more' : k.delta < 0 ?
					'fewer' : 'same') : k.status,
				kernel: k.name, base: k.count_a, new: k.count_b, delta: k.delta,
				per_iteration_base: k.per_iteration_a, per_iteration_new: k.per_iteration_b};
		});
		if (ks.length) {
			var t = GR.table(ks, 300, function (r) { return r.status !== 'same'; });
			Array.prototype.forEach.call(t.querySelectorAll('tbody tr'), function (tr) {
				tr.firstChild.className = 'st-' + tr.firstChild.textContent;
			});
			var region = GR.el('div', {class: 'scroll'}, [t]);
			box.appendChild(GR.el('p', {}, [GR.disclosure('kernels compared (' + ks.length + ')',
								    region, true)]));
			box.appendChild(region);
		}
		/* NVTX ranges by name (docs/REPORTS.md, diff "NVTX ranges"): absent without ranges */
		var nv = (diff.nvtx || []).map(function (r) {
			var step = function (v) { return v === null ? '-' : GR.ns(v); };
			return {status: r.status, range: r.name, base: r.count[0], new: r.count[1],
				per_step_base: step(r.per_step_ns[0]), per_step_new: step(r.per_step_ns[1]),
				total_base: GR.ns(r.total_ns[0]), total_new: GR.ns(r.total_ns[1])};
		});
		if (nv.length) {
			var nt = GR.el('div', {class: 'scroll', 'data-nvtx-diff': nv.length},
				       [GR.table(nv, 300)]);
			box.appendChild(GR.el('p', {}, [GR.disclosure('NVTX ranges compared (' + nv.length +
								    ')', nt, true)]));
			box.appendChild(nt);
		}
		var metrics = (diff.metrics || []).filter(function (m) { return m.delta; });
		if (metrics.length) {
			var rows = metrics.map(function (m) {
				var f = m.unit === 'ns' ? GR.ns : m.unit === 'bytes' ? GR.bytes : GR.count;
				return {metric: m.id, base: f(m.a), new: f(m.b),
					change: m.ratio === null ? '-' : 'x' + m.ratio.toFixed(2)};
			});
			var mr = GR.el('div', {class: 'scroll'}, [GR.table(rows, 300)]);
			box.appendChild(GR.el('p', {}, [GR.disclosure('figures that changed (' + rows.length +
								    ')', mr, false)]));
			box.appendChild(mr);
		}
		return box;
	}

	function side(doc, name) {
		return GR.el('h3', {}, [name + ': ' + (doc.files || []).join(' ')]);
	}

	/* Two columns under one heading. */
	function pair(title, a, b) {
		return [GR.el('h2', {}, [title]), GR.el('div', {class: 'cols'}, [a, b])];
	}

	GR.diffPage = function (data, app) {
		var b = data.base, n = data['new'], d = data.diff || {}, mark = kernelMarks(d);
		app.appendChild(GR.el('h2', {}, ['What changed']));
		app.appendChild(changes(d));
		var gpu = GR.gpuDiff(d);
		if (gpu) {
			app.appendChild(GR.el('h2', {}, ['GPU time compared (CUPTI)']));
			app.appendChild(gpu);
		}
		/* both budgets to one scale: the taller side's tallest bar */
		var top = Math.max(GR.budgetMax(b.views), GR.budgetMax(n.views));
		[].concat(
			pair('Step budget', GR.el('div', {}, [side(b, 'base'), GR.budgetChart(b.views, top)]),
			     GR.el('div', {}, [side(n, 'new'), GR.budgetChart(n.views, top)])),
			pair('Verdicts', GR.el('div', {}, [side(b, 'base'), GR.verdicts(b.report, n.report)]),
			     GR.el('div', {}, [side(n, 'new'), GR.verdicts(n.report, b.report)])),
			pair('Iteration timeline', GR.el('div', {}, [side(b, 'base'), GR.timeline(b.views)]),
			     GR.el('div', {}, [side(n, 'new'), GR.timeline(n.views)])),
			pair('Charts', GR.el('div', {}, [side(b, 'base'), GR.charts(b.report, b.views, mark)]),
			     GR.el('div', {}, [side(n, 'new'), GR.charts(n.report, n.views, mark)])),
			pair('Launch flame graph', GR.el('div', {}, [side(b, 'base'), GR.flame(b.views.flame, mark)]),
			     GR.el('div', {}, [side(n, 'new'), GR.flame(n.views.flame, mark)])),
			b.views.nvtx || n.views.nvtx ?
			pair('NVTX range flame graph', GR.el('div', {}, [side(b, 'base'), GR.flame(b.views.nvtx ? b.views.nvtx.flame : null)]),
			     GR.el('div', {}, [side(n, 'new'), GR.flame(n.views.nvtx ? n.views.nvtx.flame : null)])) : [],
			pair('Device memory', GR.el('div', {}, [side(b, 'base'), GR.memory(b.memory, b.report)]),
			     GR.el('div', {}, [side(n, 'new'), GR.memory(n.memory, n.report)]))
		).forEach(function (e) { app.appendChild(e); });
	};
})();
