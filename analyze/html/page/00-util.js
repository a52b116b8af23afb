/* gpurec HTML report: shared helpers. The files of analyze/html/page/*.js are concatenated in name
 * order into one inline script (docs/HTML.md); each adds its part to the one GR object. */
'use strict';
var GR = {};

(function () {
	var SVG_NS = 'http://www.w3.org/2000/svg';

	/* An HTML element: el('td', {class: 'num'}, ['12', child]). Text always goes in as text
	 * nodes, never as markup: kernel names are arbitrary bytes from the traced program. */
	GR.el = function (tag, attrs, kids) {
		return build(document.createElement(tag), attrs, kids);
	};
	GR.svg = function (tag, attrs, kids) {
		return build(document.createElementNS(SVG_NS, tag), attrs, kids);
	};
	function build(node, attrs, kids) {
		var k;
		for (k in attrs || {}) {
			if (attrs[k] === null || attrs[k] === undefined || attrs[k] === false)
				continue;
			if (k === 'text')
				node.textContent = attrs[k];
			else if (k.slice(0, 2) === 'on')
				node.addEventListener(k.slice(2), attrs[k]);
			else
				node.setAttribute(k, attrs[k] === true ? '' : attrs[k]);
		}
		(kids || []).forEach(function (c) {
			if (c !== null && c !== undefined)
				node.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
		});
		return node;
	}

	function trim(x) {
		var s = x.toFixed(x < 10 ? 2 : x < 100 ? 1 : 0);
		return s.indexOf('.') < 0 ? s : s.replace(/\.?0+$/, '');
	}
	/* Nanoseconds as people read them. */
	GR.ns = function (v) {
		if (v === null || v === undefined || isNaN(v))
			return '-';
		var a = Math.abs(v);
		if (a < 1e3)
			return Math.round(v) + ' ns';
		if (a < 1e6)
			return trim(v / 1e3) + ' us';
		if (a < 1e9)
			return trim(v / 1e6) + ' ms';
		return trim(v / 1e9) + ' s';
	};
	GR.bytes = function (v) {
		if (v === null || v === undefined)
			return '-';
		var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
		while (Math.abs(v) >= 1024 && i < units.length - 1) {
			v /= 1024;
			i++;
		}
		return (i ? trim(v) : String(v)) + ' ' + units[i];
	};
	GR.count = function (v) {
		if (v === null || v === undefined)
			return '-';
		var a = Math.abs(v);
		if (a < 1e4)
			return String(Math.round(v * 100) / 100);
		if (a < 1e6)
			return trim(v / 1e3) + 'k';
		return trim(v / 1e6) + 'M';
	};
	GR.pct = function (v) {
		return v === null || v === undefined ? '-' : (v * 100).toFixed(1) + '%';
	};
	/* A figure by the name of its JSON field: *_ns times, *bytes sizes, share fractions. */
	GR.auto = function (key, v) {
		if (typeof v !== 'number')
			return v === null || v === undefined ? '-' : String(v);
		if (/(_ns|^ns)$/.test(key))
			return GR.ns(v);
		if (/bytes$/.test(key))
			return GR.bytes(v);
		if (/share$/.test(key))
			return GR.pct(v);
		if (/_ts$/.test(key))
			return v ? GR.ns(v - GR.firstTs) : '-';
		return GR.count(v);
	};

	/* One tooltip for the page, shown on hover and on keyboard focus. */
	var tip;
	GR.showTip = function (text, x, y) {
		tip = tip || document.getElementById('tip');
		tip.textContent = text;
		tip.hidden = false;
		var w = tip.offsetWidth, h = tip.offsetHeight;
		var left = Math.min(x + 14, window.innerWidth - w - 8);
		var top = y + 16 + h > window.innerHeight ? y - h - 10 : y + 16;
		tip.style.left = Math.max(4, left) + 'px';
		tip.style.top = Math.max(4, top) + 'px';
	};
	GR.hideTip = function () {
		if (tip)
			tip.hidden = true;
	};
	GR.tipAtElement = function (node, text) {
		var r = node.getBoundingClientRect();
		GR.showTip(text, r.left, r.bottom - 12);
	};

	var ids = 0;
	/* A button that shows and hides a region: aria-expanded, Enter and Space for free. */
	GR.disclosure = function (label, region, open) {
		region.id = region.id || 'gr-region-' + ids++;
		region.hidden = !open;
		var b = GR.el('button', {type: 'button', 'aria-expanded': open ? 'true' : 'false',
					 'aria-controls': region.id, class: 'toggle'}, [label]);
		b.addEventListener('click', function () {
			var now = b.getAttribute('aria-expanded') !== 'true';
			b.setAttribute('aria-expanded', now ? 'true' : 'false');
			region.hidden = !now;
			if (now && region.onopen)
				region.onopen();
		});
		return b;
	};
	/* A set of buttons of which one is pressed. */
	GR.choice = function (labels, current, onpick) {
		var bar = GR.el('span', {class: 'toolbar', role: 'group'});
		labels.forEach(function (l, i) {
			var b = GR.el('button', {type: 'button', 'aria-pressed': i === current ? 'true' : 'false'},
				      [l]);
			b.addEventListener('click', function () {
				Array.prototype.forEach.call(bar.children, function (o) {
					o.setAttribute('aria-pressed', o === b ? 'true' : 'false');
				});
				onpick(i);
			});
			bar.appendChild(b);
		});
		return bar;
	};

	/* A table from rows of objects: the columns are the scalar fields of the first rows. */
	GR.table = function (rows, limit, mark) {
		limit = limit || 200;
		var cols = [];
		rows.slice(0, 20).forEach(function (r) {
			Object.keys(r).forEach(function (k) {
				if (cols.indexOf(k) < 0 && (r[k] === null || typeof r[k] !== 'object' ||
							    Array.isArray(r[k]) && r[k].length <= 3 &&
							    typeof r[k][0] !== 'object'))
					cols.push(k);
			});
		});
		var head = GR.el('tr', {}, cols.map(function (c) {
			return GR.el('th', {scope: 'col'}, [c.replace(/_/g, ' ')]);
		}));
		var body = rows.slice(0, limit).map(function (r) {
			return GR.el('tr', {class: mark && mark(r) ? 'hl' : null}, cols.map(function (c) {
				var v = r[c];
				if (Array.isArray(v))
					v = '(' + v.join(',') + ')';
				if (c === 'stream' && typeof v === 'number')
					v = '0x' + v.toString(16);
				return GR.el('td', {class: typeof v === 'number' ? 'num' : null},
					     [typeof v === 'number' ? GR.auto(c, v) : v === null ? '-' : String(v)]);
			}));
		});
		var t = GR.el('table', {}, [GR.el('thead', {}, [head]), GR.el('tbody', {}, body)]);
		if (rows.length <= limit)
			return t;
		return GR.el('div', {}, [t, GR.el('p', {class: 'note'},
			['first ' + limit + ' of ' + rows.length + ' rows'])]);
	};

	/* The scalar fields of an object as a two-column table. */
	GR.facts = function (obj) {
		var rows = [];
		Object.keys(obj).forEach(function (k) {
			var v = obj[k];
			if (k === 'verdict' || k === 'level' || (v !== null && typeof v === 'object'))
				return;
			rows.push(GR.el('tr', {}, [GR.el('th', {scope: 'row'}, [k.replace(/_/g, ' ')]),
						   GR.el('td', {}, [GR.auto(k, v)])]));
		});
		return rows.length ? GR.el('table', {}, [GR.el('tbody', {}, rows)]) : null;
	};

	/* Drawings that need their container's width: run once the page is laid out, and again
	 * when the window is resized. */
	GR.drawers = [];
	GR.later = function (draw) {
		GR.drawers.push(draw);
	};

	/* Width available to a chart inside its container. */
	GR.widthOf = function (node, fallback) {
		return Math.max(320, Math.floor(node.clientWidth || fallback || 800));
	};
})();
