/* The charts: launches per kernel, launch gaps, copies, CPU time per thread, iteration time. */
(function () {
	var LABEL_W = 300, BAR_H = 16;

	/* Horizontal bars: items [{label, value, text, cls, attrs, tip}], one row each. */
	function hbars(box, items, labelW) {
		labelW = labelW || LABEL_W;
		GR.later(function () {
			var width = Math.min(GR.widthOf(box, 700), 900), valW = 90;
			var plotW = width - labelW - valW, max = 0;
			items.forEach(function (it) { max = Math.max(max, it.value); });
			var g = items.map(function (it, i) {
				var y = i * BAR_H, len = max > 0 ? it.value / max * plotW : 0;
				var label = it.label.length > 44 ? it.label.slice(0, 43) + '\u2026' : it.label;
				var attrs = Object.assign({class: 'bar ' + (it.cls || ''), x: labelW, y: y + 2,
							   width: Math.max(it.value > 0 ? 1 : 0, len),
							   height: BAR_H - 4}, it.attrs || {});
				var bar = GR.svg('rect', attrs);
				bar.tipText = it.tip || it.label;
				return GR.svg('g', {}, [
					GR.svg('text', {x: 0, y: y + 12}, [label]), bar,
					GR.svg('text', {class: 'muted', x: labelW + len + 4, y: y + 12},
					       [it.text])]);
			});
			var svg = GR.svg('svg', {width: width, height: items.length * BAR_H + 4}, g);
			hover(svg);
			box.replaceChildren(svg);
		});
		return box;
	}

	/* Hovering a shape shows its tipText. */
	GR.hover = hover;
	function hover(svg) {
		svg.addEventListener('mousemove', function (e) {
			if (e.target.tipText)
				GR.showTip(e.target.tipText, e.clientX, e.clientY);
			else
				GR.hideTip();
		});
		svg.addEventListener('mouseleave', GR.hideTip);
	}

	function chart(title, note, body) {
		return GR.el('div', {class: 'chart'}, [GR.el('h3', {}, [title]),
			note ? GR.el('p', {class: 'note'}, [note]) : null, body]);
	}

	/* mark(name) -> '', 'added', 'removed' or 'changed': the diff's view of a kernel. */
	GR.kernelChart = function (report, mark) {
		var l = report.launches || {}, ks = l.kernels || [];
		/* executions, as the text report's kernel table counts them: a graph launch runs its
		 * kernel nodes, a node-building or captured call runs nothing */
		var exec = function (k) { return k.executed === undefined ? k.count : k.executed; };
		var total = ks.reduce(function (a, k) { return a + exec(k); }, 0);
		var items = ks.map(function (k, i) {
			var configs = (k.configs || []).map(function (c) {
				return 'grid (' + c.grid + ') block (' + c.block + ')' +
					(c.cluster ? ' cluster (' + c.cluster + ')' : '') + ' shmem ' +
					c.shmem + ': ' + c.count;
			}).join('\n');
			var share = total ? exec(k) / total : 0;
			return {label: k.name, value: exec(k), cls: mark ? mark(k.name) : '',
				text: GR.count(exec(k)) + ' (' + GR.pct(share) + ')',
				attrs: {'data-kernel': i},
				tip: k.name + '\n' + exec(k) + ' executed (' + GR.pct(share) + '), ' +
					k.count + ' launch calls' + (configs ? '\n' + configs : '')};
		});
		var nk = l.kernels_total || ks.length;
		var note = total + ' kernels executed (' + (l.total || 0) + ' launch calls) of ' + nk +
			(nk === 1 ? ' kernel' : ' kernels') +
			(l.kernels_total > ks.length ? ' (' + ks.length + ' shown)' : '');
		var box = GR.el('div', {class: 'scroll', tabindex: 0, 'aria-label': 'launches per kernel'});
		return chart('Kernels executed per kernel', note, ks.length ? hbars(box, items) : null);
	};

	/* Vertical bars over the report's gap bins, one small chart per thread. */
	GR.gapsChart = function (report) {
		var gaps = (report.launches || {}).gaps || [];
		var wrap = GR.el('div');
		gaps.slice(0, 6).forEach(function (th) {
			var h = th.histogram || [], max = 0;
			h.forEach(function (b) { max = Math.max(max, b.count); });
			var bw = 56, hh = 90, g = [];
			h.forEach(function (b, i) {
				var lo = i ? h[i - 1].lt_ns : 0;
				var label = b.lt_ns === null ? '\u2265' + GR.ns(lo) : '<' + GR.ns(b.lt_ns);
				var len = max ? b.count / max * hh : 0;
				var r = GR.svg('rect', {class: 'bar', x: i * bw + 2, y: 14 + hh - len,
							width: bw - 6, height: len});
				r.tipText = label + ': ' + b.count + ' gaps';
				g.push(r, GR.svg('text', {class: 'muted', x: i * bw + 2, y: 12}, [GR.count(b.count)]),
				       GR.svg('text', {x: i * bw + 2, y: hh + 28}, [label]));
			});
			/* scaled down to its column rather than cut at its edge */
			var w = h.length * bw + 10;
			var svg = GR.svg('svg', {viewBox: '0 0 ' + w + ' ' + (hh + 34), width: '100%',
						 style: 'max-width: ' + w + 'px'}, g);
			hover(svg);
			var gap = th.gap || {};
			wrap.appendChild(GR.el('p', {class: 'meta'}, [th.comm + ' (tid ' + th.tid + '): ' +
				gap.count + ' gaps, median ' + GR.ns(gap.median_ns) + ', p99 ' +
				GR.ns(gap.p99_ns) + ', max ' + GR.ns(gap.max_ns)]));
			wrap.appendChild(svg);
		});
		if (gaps.length > 6)
			wrap.appendChild(GR.el('p', {class: 'note'}, ['first 6 of ' + gaps.length + ' threads']));
		return chart('Launch gaps', 'a launch to the same thread\'s next launch, host side',
			     gaps.length ? wrap : GR.el('p', {class: 'note'}, ['no launch gaps']));
	};

	GR.transferChart = function (report) {
		var t = report.transfer || {}, dirs = (t.directions || []).filter(function (d) {
			return d.count > 0;
		});
		var wrap = GR.el('div'), ge = t.graph_executed || {};
		/* copies graph launches executed: no call of their own, drawn apart */
		var graphPart = function () {
			if (!ge.graph_launches)
				return;
			wrap.appendChild(GR.el('p', {class: 'meta'}, ['graph-executed bytes by direction (' +
				ge.graph_launches + ' graph launches)']));
			wrap.appendChild(hbars(GR.el('div'), (ge.directions || []).map(function (d) {
				return {label: d.kind, value: d.bytes, text: GR.bytes(d.bytes), cls: 'b2',
					tip: d.kind + ': ' + d.count + ' copies executed by graph launches, ' +
						GR.bytes(d.bytes) + ' (' + GR.bytes(d.per_launch_bytes) +
						' per launch)'};
			}), 60));
			if (ge.memsets)
				wrap.appendChild(GR.el('p', {class: 'note'}, [ge.memsets + ' memsets, ' +
					GR.bytes(ge.memset_bytes) + ' set by graph launches']));
		};
		if (!dirs.length) {
			graphPart();
			return chart('Copies', t.verdict || 'no copies', ge.graph_launches ? wrap : null);
		}
		[['count', GR.count, ''], ['bytes', GR.bytes, 'b2'], ['time_ns', GR.ns, 'b3']].forEach(function (m) {
			wrap.appendChild(GR.el('p', {class: 'meta'}, [m[0].replace('_ns', '') + ' by direction']));
			wrap.appendChild(hbars(GR.el('div'), dirs.map(function (d) {
				return {label: d.kind, value: d[m[0]], text: m[1](d[m[0]]), cls: m[2],
					tip: d.kind + ': ' + d.count + ' copies, ' + GR.bytes(d.bytes) + ', ' +
						GR.ns(d.time_ns) + ', ' + d.async + ' async'};
			}), 60));
		});
		var rows = [];
		dirs.forEach(function (d) {
			(d.sizes || []).forEach(function (s) {
				if (s.count)
					rows.push({direction: d.kind, size_up_to: s.le_bytes === null ? 'larger' :
						   GR.bytes(s.le_bytes), count: s.count, bytes: s.bytes});
			});
		});
		wrap.appendChild(GR.el('p', {class: 'meta'}, ['sizes']));
		wrap.appendChild(GR.table(rows));
		graphPart();
		return chart('Copies', t.copies + ' copies, ' + GR.bytes(t.bytes) + ', ' + GR.ns(t.time_ns),
			     wrap);
	};

	GR.cpuChart = function (report) {
		var c = report.cpu || {}, ths = (c.threads || []).slice(0, 40);
		if (!ths.length)
			return chart('CPU time per thread', c.verdict || 'no scheduler events', null);
		var wrap = GR.el('div');
		GR.later(function () {
			var width = Math.min(GR.widthOf(wrap, 700), 900), lw = 200, pw = width - lw - 10;
			var max = 0, g = [];
			ths.forEach(function (t) {
				max = Math.max(max, t.oncpu_ns + t.runnable_wait_ns + t.blocked_ns);
			});
			ths.forEach(function (t, i) {
				var x = lw, y = i * BAR_H;
				g.push(GR.svg('text', {x: 0, y: y + 12}, [t.comm + ' ' + t.tid]));
				[['oncpu_ns', ''], ['runnable_wait_ns', 'b2'], ['blocked_ns', 'b3']].forEach(function (p) {
					var len = max ? t[p[0]] / max * pw : 0;
					var r = GR.svg('rect', {class: 'bar ' + p[1], x: x, y: y + 2, width: len,
								height: BAR_H - 4});
					r.tipText = t.comm + ' ' + t.tid + '\non CPU ' + GR.ns(t.oncpu_ns) +
						'\nrunnable, waiting ' + GR.ns(t.runnable_wait_ns) + ' (' +
						GR.pct(t.starved_share) + ')\nblocked ' + GR.ns(t.blocked_ns);
					g.push(r);
					x += len;
				});
			});
			var svg = GR.svg('svg', {width: width, height: ths.length * BAR_H + 4}, g);
			hover(svg);
			wrap.replaceChildren(svg);
		});
		var culprits = [];
		(c.threads || []).forEach(function (t) {
			(t.culprits || []).forEach(function (k) {
				culprits.push(Object.assign({waiting: t.comm + ' ' + t.tid}, k));
			});
		});
		return chart('CPU time per thread', 'on CPU (blue), runnable but waiting (orange), blocked (grey)',
			     GR.el('div', {}, [wrap, culprits.length ? GR.el('h3', {}, ['culprits']) : null,
					       culprits.length ? GR.table(culprits, 50) : null]));
	};

	/* Iteration time over the run: a dot per iteration, or min-max bands with the median. */
	GR.iterationChart = function (views) {
		var it = views.iterations || {}, pts = it.points || [];
		if (!it.found || !pts.length)
			return chart('Iteration time', 'no iteration found', null);
		var box = GR.el('div');
		GR.later(function () {
			var width = Math.min(GR.widthOf(box, 700), 900), h = 160, lw = 60;
			var pw = width - lw - 10, max = 0, g = [];
			pts.forEach(function (p) { max = Math.max(max, it.binned ? p[3] : p[1]); });
			var x = function (i) { return lw + (pts.length > 1 ? i / (pts.length - 1) : 0.5) * pw; };
			var y = function (v) { return 8 + h - (max ? v / max * h : 0); };
			[0, 0.5, 1].forEach(function (f) {
				g.push(GR.svg('text', {class: 'muted', x: 0, y: y(max * f) + 4}, [GR.ns(max * f)]));
			});
			if (it.binned) {
				var top = pts.map(function (p, i) { return x(i) + ',' + y(p[3]); });
				var bottom = pts.map(function (p, i) { return x(i) + ',' + y(p[1]); }).reverse();
				g.push(GR.svg('polygon', {class: 'band', points: top.concat(bottom).join(' ')}));
				g.push(GR.svg('polyline', {class: 'line', points: pts.map(function (p, i) {
					return x(i) + ',' + y(p[2]);
				}).join(' ')}));
			} else {
				pts.forEach(function (p, i) {
					var d = GR.svg('circle', {class: 'dot', cx: x(i), cy: y(p[1]), r: 2});
					d.tipText = 'iteration ' + i + ' at ' + GR.ns(p[0]) + ': ' + GR.ns(p[1]);
					g.push(d);
				});
			}
			var svg = GR.svg('svg', {width: width, height: h + 16}, g);
			hover(svg);
			box.replaceChildren(svg);
		});
		return chart('Iteration time', it.count + ' iterations' + (it.binned ?
			' in ' + pts.length + ' bins (band: min to max, line: median)' : '') +
			(it.thread ? ' on ' + it.thread.comm + ' (tid ' + it.thread.tid + ')' : ''), box);
	};

	GR.charts = function (report, views, mark) {
		return GR.el('section', {class: 'charts', 'aria-label': 'charts'}, [
			GR.kernelChart(report, mark), GR.iterationChart(views), GR.gapsChart(report),
			GR.cpuChart(report), GR.transferChart(report)]);
	};
})();
