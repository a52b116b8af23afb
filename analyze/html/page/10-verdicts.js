/* Verdicts first: one line per report section that has a verdict, its evidence (the
 * section's own figures and rows, as `report --json` has them) behind one button. */
(function () {
	function evidence(section) {
		var box = GR.el('div', {class: 'evidence panel'});
		var facts = GR.facts(section);
		if (facts)
			box.appendChild(facts);
		Object.keys(section).forEach(function (k) {
			var v = section[k];
			if (Array.isArray(v) && v.length && typeof v[0] === 'object' && v[0] !== null) {
				box.appendChild(GR.el('h3', {}, [k.replace(/_/g, ' ') + ' (' + v.length + ')']));
				box.appendChild(GR.el('div', {class: 'scroll'}, [GR.table(v, 200)]));
			} else if (v && typeof v === 'object' && !Array.isArray(v)) {
				var inner = GR.facts(v);
				if (inner) {
					box.appendChild(GR.el('h3', {}, [k.replace(/_/g, ' ')]));
					box.appendChild(inner);
				}
			}
		});
		return box;
	}

	/* The sections of a report that carry a verdict, in the report's order, after the
	 * diagnosis of the step (what bounds it), which the others read. */
	GR.verdictSections = function (report) {
		return ['diagnosis'].concat(report.sections || []).filter(function (s) {
			return report[s] && typeof report[s].verdict === 'string';
		});
	};

	/* other: the report on the diff's other side; a verdict that differs there is marked. */
	GR.verdicts = function (report, other) {
		var box = GR.el('section', {'aria-label': 'verdicts'});
		GR.verdictSections(report).forEach(function (s) {
			var sec = report[s], level = sec.level || 'none';
			var changed = other && other[s] && (other[s].level !== sec.level);
			var ev = evidence(sec);
			var row = GR.el('div', {class: 'verdict' + (changed ? ' changed' : ''),
						'data-verdict': s}, [
				GR.el('span', {class: 'section'}, [s]),
				GR.el('span', {class: 'level level-' + level}, [level === 'none' ? '-' : level]),
				GR.el('span', {class: 'text'}, [sec.verdict, ' ',
					GR.disclosure('evidence', ev, false)]),
				ev]);
			box.appendChild(row);
		});
		if (!box.children.length)
			box.appendChild(GR.el('p', {class: 'note'}, ['no section has a verdict']));
		return box;
	};
})();
