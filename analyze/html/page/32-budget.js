/* The step budget over the run (views.budget): a stacked bar per iteration, or per bucket of
 * consecutive iterations (their mean), one colour per part, the report's median, p90 and slowest
 * iterations marked above their bars. */
(function () {
	var PLOT_H = 160, TOP = 34, LABEL_W = 64;

	function range(r) {
		return r[0] === r[1] ? 'iteration ' + r[0] :
			'iterations ' + r[0] + '\u2013' + r[1] + ' (mean of ' + (r[1] - r[0] + 1) + ')';
	}

	function tip(b, used, r) {
		return range(r) + ': ' + GR.ns(r[2]) + used.filter(function (p) {
			return r[3 + p] > 0;
		}).map(function (p) {
			return '\n' + b.words[p] + ' ' + GR.ns(r[3 + p]) + ' (' +
				GR.pct(r[2] ? r[3 + p] / r[2] : 0) + ')';
		}).join('');
	}

	/* scale: the total at the plot's top when larger than the tallest bar (a diff draws both
	 * sides to one scale) */
	GR.budgetMax = function (views) {
		return ((views.budget || {}).bars || []).reduce(function (m, r) {
			return Math.max(m, r[2]);
		}, 0);
	};
	GR.budgetChart = function (views, scale) {
		var b = views.budget, bars = (b && b.bars) || [];
		if (!b || !b.found || !bars.length)
			return GR.el('p', {class: 'note'}, ['no step budget: no iteration found']);
		var used = [];
		b.parts.forEach(function (name, p) {
			if (bars.some(function (r) { return r[3 + p] > 0; }))
				used.push(p);
		});
		var legend = GR.el('p', {class: 'legend', 'aria-label': 'parts'}, used.map(function (p) {
			return GR.el('span', {}, [GR.el('i', {class: 'swatch bp bp-' + b.parts[p]}), b.words[p]]);
		}));
		var box = GR.el('div', {'aria-label': 'step budget per iteration'});
		GR.later(function () {
			var width = Math.min(GR.widthOf(box, 900), 1360), pw = width - LABEL_W - 10;
			var max = Math.max(GR.budgetMax(views), scale || 0), g = [];
			var bw = pw / bars.length, gap = bw > 4 ? 1 : 0;
			var y = function (v) { return TOP + PLOT_H - (max ? v / max * PLOT_H : 0); };
			[0, 0.5, 1].forEach(function (f) {
				g.push(GR.svg('text', {class: 'muted', x: 0, y: y(max * f) + 4}, [GR.ns(max * f)]));
			});
			bars.forEach(function (r, i) {
				var x = LABEL_W + i * bw, acc = 0, text = tip(b, used, r);
				g.push(GR.svg('g', {'data-budget-bar': i, 'data-total': r[2]}, used.filter(function (p) {
					return r[3 + p] > 0;
				}).map(function (p) {
					var v = r[3 + p], y0 = y(acc), y1 = y(acc + v);
					acc += v;
					var rect = GR.svg('rect', {class: 'bp bp-' + b.parts[p], x: x, y: y1,
								   width: Math.max(bw - gap, 0.5), height: y0 - y1,
								   'data-ns': v});
					rect.tipText = text;
					return rect;
				})));
			});
			/* the report's median, p90 and slowest: a dashed line down to the bar holding it */
			(b.marks || []).forEach(function (m, k) {
				var i = Math.min(Math.floor(m.index / b.per), bars.length - 1);
				var x = LABEL_W + (i + 0.5) * bw, ly = 10 + k * 11;
				var line = GR.svg('line', {class: 'budget-mark', x1: x, x2: x, y1: ly + 2,
							   y2: y(bars[i][2])});
				var right = x > width - 60; /* near the right edge: the label to the left */
				var label = GR.svg('text', {x: right ? x - 3 : x + 3, y: ly + 4,
							    'text-anchor': right ? 'end' : null,
							    'data-budget-mark': m.label}, [m.label]);
				label.tipText = line.tipText = 'the ' + m.label + ' iteration, ' + m.index +
					': ' + GR.ns(m.total_ns);
				g.push(line, label);
			});
			var svg = GR.svg('svg', {width: width, height: TOP + PLOT_H + 6, 'data-plot-h': PLOT_H,
						 'data-max-ns': max}, g);
			GR.hover(svg);
			box.replaceChildren(svg);
		});
		var th = (views.iterations || {}).thread;
		return GR.el('section', {class: 'chart', 'aria-label': 'step budget'}, [
			GR.el('p', {class: 'note'}, [b.count + ' iterations' +
				(th ? ' on ' + th.comm + ' (tid ' + th.tid + ')' : '') + ', ' +
				(b.per > 1 ? 'a bar per ' + b.per + ' consecutive iterations (their mean)' :
				 'a bar per iteration') + ': where each iteration\'s time went']),
			legend, box]);
	};
})();
