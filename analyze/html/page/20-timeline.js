/* The iteration timeline: tracks (threads, streams, GPU) against time for a few iterations.
 * Calls are bars coloured by type; runnable and blocked waits shade the thread's row behind
 * them; a launch's instant on its stream is a tick. NVTX ranges get lanes under their thread's
 * row, one per nesting depth, in the program's colour where it gave one. Wheel or the buttons
 * zoom, drag pans. */
(function () {
	var LABEL_W = 230, ROW_H = 22, AXIS_H = 22;
	/* blocked waits whose reason is known are coloured by it (docs/REPORTS.md, "Why the host
	 * waited"); their tip says the call, the waker and its stack */
	var SHADES = {runnable: 1, blocked: 1, blocked_gil: 1, blocked_lock: 1, blocked_input: 1,
		      blocked_disk: 1, blocked_sleep: 1, blocked_child: 1, blocked_other: 1,
		      blocked_stopped: 1};
	var TYPES = ['launch', 'copy', 'memset', 'sync', 'alloc', 'free', 'graph', 'nccl', 'other',
		     'failed', 'runnable', 'blocked', 'gpu_kernel', 'gpu_memcpy', 'gpu_memset', 'kernel',
		     'blocked_gil', 'blocked_lock', 'blocked_input', 'blocked_disk', 'blocked_sleep',
		     'blocked_child', 'blocked_other', 'blocked_stopped'];

	/* A step of 1, 2 or 5 times a power of ten giving about n ticks over the range. */
	function niceStep(range, n) {
		var raw = range / Math.max(1, n), p = Math.pow(10, Math.floor(Math.log10(raw)));
		var m = raw / p;
		return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
	}

	function spanTip(tl, s, w) {
		var name = tl.names[s[4]] || '', detail = s[5] >= 0 ? tl.names[s[5]] : '';
		var track = tl.tracks[s[0]];
		return name + (detail ? '\n' + detail : '') + '\n' + s[3] + ' on ' +
			(track ? track.label : '?') + '\nstart ' + GR.ns(s[1]) + ' (+' +
			GR.ns(s[1] - w.start) + ' in the window)' + '\nduration ' + GR.ns(s[2]);
	}

	function nvtxTip(s) {
		return s[5] + '\nNVTX range, depth ' + s[4] + '\nstart ' + GR.ns(s[2]) +
			'\nduration ' + GR.ns(s[3]);
	}

	function drawWindow(tl, w, fig, spansIn, nvtx) {
		var used = {}, rows = [], lanes = {};
		spansIn.forEach(function (i) { used[tl.spans[i][0]] = 1; });
		nvtx.forEach(function (s) {
			used[s[1]] = 1;
			lanes[s[1]] = Math.max(lanes[s[1]] || 0, s[4] + 1);
		});
		tl.tracks.forEach(function (t) {
			if (!used[t.id])
				return;
			rows.push(t);
			for (var d = 0; d < (lanes[t.id] || 0); d++)
				rows.push({id: t.id + ':' + d, label: '  NVTX' + (d ? ' depth ' + d : '')});
		});
		var rowOf = {};
		rows.forEach(function (t, i) { rowOf[t.id] = i; });
		var view = {a: w.start, b: Math.max(w.end, w.start + 1)};
		var holder = GR.el('div');
		var svgNode;

		function render() {
			var width = GR.widthOf(fig, 900), plotW = width - LABEL_W - 8;
			var height = AXIS_H + rows.length * ROW_H + 4;
			var scale = plotW / (view.b - view.a);
			var x = function (t) { return LABEL_W + (t - view.a) * scale; };
			var g = [];
			rows.forEach(function (t, i) {
				var y = AXIS_H + i * ROW_H;
				if (i % 2 === 0)
					g.push(GR.svg('rect', {class: 'track-band', x: 0, y: y, width: width,
							       height: ROW_H}));
				g.push(GR.svg('text', {x: 4, y: y + 15}, [t.label.length > 34 ?
					t.label.slice(0, 33) + '\u2026' : t.label]));
			});
			var step = niceStep(view.b - view.a, Math.max(2, plotW / 110));
			var first = Math.ceil((view.a - w.start) / step) * step + w.start;
			for (var t = first; t <= view.b; t += step) {
				g.push(GR.svg('line', {class: 'axis', x1: x(t), x2: x(t), y1: AXIS_H - 4,
						       y2: height, stroke: 'currentColor', 'stroke-opacity': 0.12}));
				g.push(GR.svg('text', {class: 'muted', x: x(t) + 2, y: 12},
					      ['+' + GR.ns(t - w.start)]));
			}
			spansIn.forEach(function (i) {
				var s = tl.spans[i];
				if (s[1] > view.b || s[1] + s[2] < view.a || !(s[0] in rowOf))
					return;
				var y = AXIS_H + rowOf[s[0]] * ROW_H;
				var x0 = Math.max(LABEL_W, x(s[1])), x1 = Math.min(width - 8, x(s[1] + s[2]));
				var shade = SHADES[s[3]], tick = s[3] === 'kernel';
				var wpx = tick ? 2 : Math.max(1, x1 - x0);
				g.push(GR.svg('rect', {class: 'span t' + '-' + s[3], 'data-span': i,
						       x: tick ? x0 - 1 : x0, width: wpx,
						       y: shade ? y + 1 : y + 4, height: shade ? ROW_H - 2 : ROW_H - 8}));
			});
			nvtx.forEach(function (s, i) {
				if (s[2] > view.b || s[2] + s[3] < view.a)
					return;
				var y = AXIS_H + rowOf[s[1] + ':' + s[4]] * ROW_H;
				var x0 = Math.max(LABEL_W, x(s[2])), x1 = Math.min(width - 8, x(s[2] + s[3]));
				var attrs = {class: 'nvtx', 'data-nvtx': i, x: x0, width: Math.max(1, x1 - x0),
					     y: y + 2, height: ROW_H - 4};
				if (s[6])
					attrs.style = 'fill:' + s[6];
				g.push(GR.svg('rect', attrs));
				if (x1 - x0 > 40)
					g.push(GR.svg('text', {class: 'nvtx-name', x: x0 + 3, y: y + 15},
						      [s[5].length > (x1 - x0) / 7 ?
						       s[5].slice(0, Math.max(1, Math.floor((x1 - x0) / 7) - 1)) + '\u2026' :
						       s[5]]));
			});
			var node = GR.svg('svg', {width: width, height: height, tabindex: 0, role: 'img',
						  'aria-label': 'timeline of the ' + w.label + ' window: ' +
						  rows.length + ' tracks, ' + spansIn.length +
						  ' spans; + and - zoom, arrows pan'}, g);
			node.addEventListener('mousemove', function (e) {
				var i = e.target.getAttribute && e.target.getAttribute('data-span');
				var k = e.target.getAttribute && e.target.getAttribute('data-nvtx');
				if (k !== null && k !== undefined)
					return GR.showTip(nvtxTip(nvtx[+k]), e.clientX, e.clientY);
				if (i === null || i === undefined)
					return GR.hideTip();
				GR.showTip(spanTip(tl, tl.spans[+i], w), e.clientX, e.clientY);
			});
			node.addEventListener('mouseleave', GR.hideTip);
			node.addEventListener('wheel', function (e) {
				e.preventDefault();
				var r = node.getBoundingClientRect();
				var at = view.a + (e.clientX - r.left - LABEL_W) / scale;
				zoom(e.deltaY < 0 ? 0.8 : 1.25, at);
			}, {passive: false});
			node.addEventListener('mousedown', function (e) {
				var from = e.clientX, a = view.a, b = view.b;
				function move(m) {
					var d = (m.clientX - from) / scale;
					view.a = a - d;
					view.b = b - d;
					clampAndRender();
				}
				function up() {
					window.removeEventListener('mousemove', move);
					window.removeEventListener('mouseup', up);
				}
				window.addEventListener('mousemove', move);
				window.addEventListener('mouseup', up);
			});
			node.addEventListener('keydown', function (e) {
				var span = view.b - view.a;
				if (e.key === '+' || e.key === '=')
					zoom(0.5);
				else if (e.key === '-')
					zoom(2);
				else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
					var d = (e.key === 'ArrowLeft' ? -0.2 : 0.2) * span;
					view.a += d;
					view.b += d;
					clampAndRender();
				} else
					return;
				e.preventDefault();
			});
			var focused = document.activeElement === svgNode;
			holder.replaceChildren(node);
			svgNode = node;
			if (focused)
				node.focus();
		}
		function clampAndRender() {
			var span = view.b - view.a, lo = w.start, hi = Math.max(w.end, w.start + 1);
			if (span > hi - lo)
				span = hi - lo;
			if (view.a < lo)
				view.a = lo;
			view.b = view.a + span;
			if (view.b > hi) {
				view.b = hi;
				view.a = hi - span;
			}
			render();
		}
		function zoom(f, at) {
			var span = view.b - view.a;
			at = at === undefined ? view.a + span / 2 : at;
			var ns = Math.max(100, span * f);
			view.a = at - (at - view.a) * ns / span;
			view.b = view.a + ns;
			clampAndRender();
		}
		var bar = GR.el('div', {class: 'toolbar'}, [
			GR.el('button', {type: 'button', onclick: function () { zoom(0.5); }}, ['zoom in']),
			GR.el('button', {type: 'button', onclick: function () { zoom(2); }}, ['zoom out']),
			GR.el('button', {type: 'button', onclick: function () {
				view.a = w.start;
				view.b = Math.max(w.end, w.start + 1);
				render();
			}}, ['whole window'])]);
		fig.appendChild(bar);
		fig.appendChild(holder);
		fig.redraw = render;
		return render;
	}

	function legend(present) {
		return GR.el('div', {class: 'legend', 'aria-hidden': 'true'}, TYPES.filter(function (t) {
			return present[t];
		}).map(function (t) {
			return GR.el('span', {}, [GR.el('i', {class: 'sw-' + t,
				style: 'background: var(--' + ({gpu_kernel: 'gpu', gpu_memcpy: 'copy',
					gpu_memset: 'memset', blocked_gil: 'b-gil', blocked_lock: 'b-lock',
					blocked_input: 'b-input', blocked_disk: 'b-disk',
					blocked_sleep: 'b-sleep', blocked_child: 'b-child',
					blocked_other: 'blocked', blocked_stopped: 'blocked'}[t] || t) + ')'}), t]);
		}));
	}

	GR.timeline = function (views) {
		var tl = views.timeline, box = GR.el('section', {'aria-label': 'iteration timeline'});
		var present = {};
		tl.spans.forEach(function (s) { present[s[3]] = 1; });
		if (!tl.windows.length) {
			box.appendChild(GR.el('p', {class: 'note'}, ['no CUDA call was recorded: nothing to draw']));
			return box;
		}
		box.appendChild(legend(present));
		if (tl.truncated)
			box.appendChild(GR.el('p', {class: 'note warn'}, [tl.truncated +
				' spans left out (a window keeps its longest ones)']));
		var next = 0, nv = views.nvtx ? views.nvtx.spans : [];
		if (views.nvtx && views.nvtx.truncated)
			box.appendChild(GR.el('p', {class: 'note warn'}, [views.nvtx.truncated +
				' NVTX ranges left out (a window keeps its first ' + nv.length + ')']));
		tl.windows.forEach(function (w, wi) {
			var spansIn = [], i;
			if (typeof w.spans === 'number') {
				/* the array holds each window's spans in turn, w.spans of them */
				for (i = next; i < next + w.spans && i < tl.spans.length; i++)
					spansIn.push(i);
				next += w.spans;
			} else {
				tl.spans.forEach(function (s, j) {
					if (s[1] < w.end && s[1] + s[2] >= w.start)
						spansIn.push(j);
				});
			}
			var title = w.index >= 0 ? w.label + ' iteration (#' + w.index + ')' :
				'the busiest ' + GR.ns(w.end - w.start) + ' (no iteration found)';
			var fig = GR.el('figure', {class: 'window', 'data-iteration': w.index}, [
				GR.el('figcaption', {}, [GR.el('strong', {}, [title]), ' ',
					GR.el('span', {class: 'meta'}, ['at ' + GR.ns(w.start) + ', ' +
						GR.ns(w.end - w.start) + ', ' + spansIn.length + ' spans'])])]);
			box.appendChild(fig);
			GR.later(drawWindow(tl, w, fig, spansIn,
					    nv.filter(function (s) { return s[0] === wi; })));
		});
		return box;
	};
})();
