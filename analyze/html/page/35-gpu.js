/* What the GPU itself measured (record --cupti: report.gpu, diff.gpu), labelled as such and
 * kept apart from the host-side figures: busy share and idle gaps per device, the host-side
 * estimate beside the GPU's truth, kernel durations, copies, and every count that differs
 * between the probes and the GPU. Nothing is drawn for a trace without GPU rows. */
(function () {
	function busyRows(window) {
		return ((window && window.devices) || []).map(function (d) {
			return {device: d.device, busy_ns: d.busy_ns, busy_share: d.busy_share,
				idle_gaps: d.gaps, idle_ns: d.gap_ns, largest_gap_ns: d.largest_gap_ns};
		});
	}

	function durRows(list) {
		return (list || []).map(function (k) {
			var row = {kernel: k.name};
			if (k.grid)
				row.grid = k.grid;
			if (k.block)
				row.block = k.block;
			row.count = k.dur.count;
			row.total_ns = k.dur.total_ns;
			row.median_ns = k.dur.median_ns;
			row.p99_ns = k.dur.p99_ns;
			return row;
		});
	}

	function titled(box, title, node) {
		box.appendChild(GR.el('h3', {}, [title]));
		box.appendChild(GR.el('div', {class: 'scroll'}, [node]));
	}

	/* The report's GPU section, or null when the trace has no GPU rows. */
	GR.gpu = function (report) {
		var g = report.gpu;
		if (!g)
			return null;
		var box = GR.el('section', {class: 'gpu', 'aria-label': 'measured on the GPU'});
		box.appendChild(GR.el('p', {class: 'source'}, [g.source + ': ' + g.rows + ' GPU rows, ' +
			g.tied + ' tied to the host call that made them, ' + g.untied + ' untied']));
		if (g.dropped)
			box.appendChild(GR.el('p', {class: 'warn'}, [g.dropped + ' GPU records dropped: ' +
				'the GPU counts and times below are lower bounds']));
		if (g.host_launch_share !== undefined && g.gpu_idle_share_iteration !== undefined)
			box.appendChild(GR.el('p', {}, ['host-side estimate: launch calls take ' +
				GR.pct(g.host_launch_share) + ' of an iteration; measured: the GPU idles ' +
				GR.pct(g.gpu_idle_share_iteration) + ' of it']));
		var counts = g.counts || [], differ = counts.filter(function (c) {
			return c.probe_direct + c.probe_graph !== c.gpu_direct + c.gpu_graph;
		});
		box.appendChild(GR.el('p', {class: differ.length ? 'warn' : null,
					    'data-gpu-mismatches': String(differ.length)},
			['kernel counts, probes (executed) vs GPU: ' + counts.length + ' names, ' +
			 differ.length + ' differ']));
		if (differ.length)
			titled(box, 'counts that differ', GR.table(differ, 200));
		titled(box, 'GPU busy, whole recording', GR.table(busyRows(g.recording), 64));
		if (g.iteration && g.iteration.devices && g.iteration.devices.length)
			titled(box, 'GPU busy, in the loop', GR.table(busyRows(g.iteration), 64));
		var kt = GR.table(durRows(g.kernels), 300);
		Array.prototype.forEach.call(kt.querySelectorAll('tbody tr'), function (tr) {
			tr.setAttribute('data-gpu-kernel', '');
		});
		titled(box, 'kernels by GPU time (' + (g.kernels || []).length + ')', kt);
		if (g.configs && g.configs.length) {
			var ct = GR.el('div', {class: 'scroll'}, [GR.table(durRows(g.configs), 300)]);
			box.appendChild(GR.el('p', {}, [GR.disclosure('by kernel and configuration (' +
				g.configs.length + ')', ct, false)]));
			box.appendChild(ct);
		}
		if (g.copies && g.copies.length)
			titled(box, 'copies on the GPU', GR.table(g.copies, 64));
		return box;
	};

	/* The diff's GPU comparison, or null when neither trace has GPU rows. */
	GR.gpuDiff = function (diff) {
		var g = diff.gpu;
		if (!g)
			return null;
		var box = GR.el('section', {class: 'gpu', 'aria-label': 'GPU time compared'});
		if (!g.compared) {
			box.appendChild(GR.el('p', {}, ['only one trace has GPU rows (recorded with ' +
				'--cupti): nothing is compared on the GPU side']));
			return box;
		}
		box.appendChild(GR.el('p', {class: 'source'}, [g.source + ': ' + g.rows_a + ' GPU rows ' +
			'in base, ' + g.rows_b + ' in new']));
		if (g.dropped_a || g.dropped_b)
			box.appendChild(GR.el('p', {class: 'warn'}, ['GPU records dropped: ' + g.dropped_a +
				' in base, ' + g.dropped_b + ' in new: those figures are lower bounds']));
		/* a kernel one side lacks: its figures there are absent, shown as '-' */
		function v(x) { return x === undefined ? null : x; }
		var rows = (g.kernels || []).map(function (k) {
			var a = k.a || {}, b = k.b || {};
			return {status: k.status, kernel: k.name, base_count: v(a.count),
				new_count: v(b.count), base_total_ns: v(a.total_ns),
				new_total_ns: v(b.total_ns), total_delta_ns: v(k.total_delta_ns),
				base_median_ns: v(a.median_ns), new_median_ns: v(b.median_ns),
				median_delta_ns: v(k.median_delta_ns)};
		});
		var t = GR.table(rows, 300, function (r) { return r.total_delta_ns; });
		Array.prototype.forEach.call(t.querySelectorAll('tbody tr'), function (tr) {
			tr.setAttribute('data-gpu-kernel', '');
		});
		titled(box, 'GPU time per kernel (' + rows.length + ')', t);
		return box;
	};
})();
