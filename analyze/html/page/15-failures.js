/* Failed calls, above the verdicts as in the text report: the banner `report` opens its summary
 * with (failed_banner, the same sentence), then the calls by API and error, with the first
 * call's site. A verdict that says "not judged ... (see above)" points here. */
(function () {
	GR.failures = function (report) {
		var errors = report.errors || [];
		if (!report.failed_banner && !errors.length)
			return null;
		var box = GR.el('section', {'aria-label': 'failed calls', class: 'failures'});
		if (report.failed_banner)
			box.appendChild(GR.el('p', {class: 'failed-banner' +
				(report.calls && report.calls.most_failed ? ' most' : '')},
				[report.failed_banner]));
		var rows = errors.map(function (e) {
			return {
				api: e.api,
				error: e.status_name ? e.status_name + ' (' + e.status + ')' : 'error ' + e.status,
				calls: e.count,
				first_at: GR.ns(e.first_ts - report.first_ts),
				first_from: e.site && e.site.length ? e.site[0] : '-'
			};
		});
		if (rows.length)
			box.appendChild(GR.el('div', {class: 'scroll'}, [GR.table(rows, 50)]));
		return box;
	};
})();
