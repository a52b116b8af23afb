/* The launch flame graph, as an icicle: the root on top, callers above callees, the kernel at
 * the leaf. Width is launches or host time in CUDA calls (the switch); click, Enter or Space
 * on a box zooms to it, on an ancestor zooms back out. */
(function () {
	var ROW_H = 18, MIN_PX = 0.5, FOCUS_PX = 30;

	function hue(name) {
		var h = 0;
		for (var i = 0; i < name.length; i++)
			h = (h * 31 + name.charCodeAt(i)) >>> 0;
		return 10 + h % 50; /* reds to yellows, light enough for dark text in either scheme */
	}

	function depthOf(node) {
		var d = 0;
		(node.children || []).forEach(function (c) { d = Math.max(d, depthOf(c)); });
		return d + 1;
	}

	GR.flame = function (flame, mark) {
		var bytes = flame && flame.weights && flame.weights[0] === 'bytes';
		var ranges = flame && flame.weights && flame.weights[0] === 'ranges';
		var box = GR.el('section', {class: 'flame', 'aria-label': bytes ? 'memory flame graph' :
			ranges ? 'NVTX range flame graph' : 'launch flame graph'});
		var root = flame && flame.root;
		if (!root || !root.v || (!root.v[0] && !root.v[1])) {
			box.appendChild(GR.el('p', {class: 'note'}, ['no CUDA call stacks were recorded']));
			return box;
		}
		var labels = {launches: 'launches', host_ns: 'host time in CUDA calls', bytes: 'device bytes live',
			      ranges: 'NVTX ranges', range_ns: 'time in NVTX ranges'};
		/* the first weight with anything to show: a run of graph launches only has no
		 * kernel launches to weigh, but host time */
		var w = flame.first !== undefined ? flame.first :
			Math.max(0, root.v.findIndex(function (v) { return v > 0; }));
		var zoomPath = [root], holder = GR.el('div');
		(function parents(n) {
			(n.children || []).forEach(function (c) {
				c.up = n;
				parents(c);
			});
		})(root);
		box.appendChild(GR.el('div', {class: 'toolbar'}, [GR.el('span', {class: 'meta'}, ['width:']),
			GR.choice(flame.weights.map(function (k) { return labels[k] || k; }), w,
				  function (i) { w = i; draw(); }),
			root.v[0] || ranges ? null : GR.el('span', {class: 'note'}, ['(no kernel launch has a stack)']),
			flame.merged ? GR.el('span', {class: 'note'}, [flame.merged +
				' call sites under 0.1% of both weights are folded into "(other)"']) : null]));
		box.appendChild(holder);

		function fmt(v, i) {
			var k = flame.weights[i];
			return k === 'host_ns' || k === 'range_ns' ? GR.ns(v) : k === 'bytes' ? GR.bytes(v) :
				GR.count(v) + (k === 'ranges' ? ' ranges' : ' launches');
		}
		function tipOf(n) {
			var total = root.v[w] || 1;
			return n.name + '\n' + flame.weights.map(function (k, i) { return fmt(n.v[i], i); }).join(', ') + '\n' +
				GR.pct(n.v[w] / total) + ' of all ' + (labels[flame.weights[w]] || '');
		}
		function zoomTo(n) {
			var path = [];
			for (var p = n; p; p = p.up)
				path.unshift(p);
			zoomPath = path;
			draw();
		}

		function draw() {
			var width = GR.widthOf(holder, 900), focus = zoomPath[zoomPath.length - 1];
			var depth = zoomPath.length - 1 + depthOf(focus), g = [];
			function boxFor(n, x, y, wpx, ancestor) {
				var label = wpx > 40 ? n.name.slice(0, Math.floor(wpx / 6.5)) : '';
				var cls = 'fbox' + (mark && mark(n.name) ? ' changed' : '');
				var attrs = {class: cls, 'data-flame': n.name === 'all' ? 'root' : 'box',
					     role: 'button', 'aria-label': n.name + ': ' + fmt(n.v[w], w)};
				if (wpx >= FOCUS_PX)
					attrs.tabindex = 0;
				var node = GR.svg('g', attrs, [
					GR.svg('rect', {x: x, y: y, width: wpx, height: ROW_H - 1,
							fill: 'hsl(' + hue(n.name) + ', 80%, ' + (ancestor ? 80 : 64) + '%)'}),
					GR.svg('text', {x: x + 3, y: y + 13}, [label])]);
				node.flameNode = n;
				g.push(node);
			}
			zoomPath.forEach(function (n, i) {
				if (i < zoomPath.length - 1)
					boxFor(n, 0, i * ROW_H, width, true);
			});
			(function lay(n, x, y, wpx) {
				boxFor(n, x, y, wpx, false);
				var total = n.v[w] || 0;
				if (!total)
					return;
				(n.children || []).forEach(function (c) {
					var cw = c.v[w] / total * wpx;
					if (cw >= MIN_PX)
						lay(c, x, y + ROW_H, cw);
					x += cw;
				});
			})(focus, 0, (zoomPath.length - 1) * ROW_H, width);
			var svg = GR.svg('svg', {width: width, height: depth * ROW_H + 2}, g);
			function pick(e) {
				var t = e.target.closest && e.target.closest('.fbox');
				return t && t.flameNode;
			}
			svg.addEventListener('mousemove', function (e) {
				var n = pick(e);
				if (n)
					GR.showTip(tipOf(n), e.clientX, e.clientY);
				else
					GR.hideTip();
			});
			svg.addEventListener('mouseleave', GR.hideTip);
			svg.addEventListener('click', function (e) {
				var n = pick(e);
				if (n)
					zoomTo(n === focus && n.up ? n.up : n);
			});
			svg.addEventListener('keydown', function (e) {
				var n = pick(e);
				if (n && (e.key === 'Enter' || e.key === ' ')) {
					e.preventDefault();
					zoomTo(n === focus && n.up ? n.up : n);
					var again = holder.querySelector('[tabindex]');
					if (again)
						again.focus();
				}
			});
			svg.addEventListener('focusin', function (e) {
				var n = pick(e);
				if (n)
					GR.tipAtElement(e.target, tipOf(n));
			});
			svg.addEventListener('focusout', GR.hideTip);
			holder.replaceChildren(svg);
		}
		GR.later(draw);
		return box;
	};
})();
