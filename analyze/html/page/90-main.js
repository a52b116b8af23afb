/* Reads the data the page carries and draws the report or the diff. */
(function () {
	function header(data, app, report) {
		app.appendChild(GR.el('h1', {}, [data.title]));
		var bits = [data.version ? 'gpurec ' + data.version : null];
		if (report) {
			bits.push(GR.ns(report.wall_ns) + ' recorded');
			if (report.lost_events)
				bits.push(report.lost_events + ' events lost');
			if (report.integrity && report.integrity.damaged)
				bits.push('the trace is damaged: figures are lower bounds');
		}
		app.appendChild(GR.el('p', {class: 'meta'}, [bits.filter(Boolean).join(' \u00b7 ')]));
	}

	function reportPage(data, app) {
		var r = data.report, v = data.views;
		header(data, app, r);
		/* failed calls first, as the text report's summary: the verdicts point up to them */
		var failures = GR.failures(r);
		if (failures) {
			app.appendChild(GR.el('h2', {}, ['Failed calls']));
			app.appendChild(failures);
		}
		/* the budget first, as the text report opens with it: the verdicts read it */
		app.appendChild(GR.el('h2', {}, ['Step budget']));
		app.appendChild(GR.budgetChart(v));
		app.appendChild(GR.el('h2', {}, ['Verdicts']));
		app.appendChild(GR.verdicts(r));
		var gpu = GR.gpu(r);
		if (gpu) {
			app.appendChild(GR.el('h2', {}, ['Measured on the GPU (CUPTI)']));
			app.appendChild(gpu);
		}
		app.appendChild(GR.el('h2', {}, ['Iteration timeline']));
		app.appendChild(GR.timeline(v));
		app.appendChild(GR.el('h2', {}, ['Charts']));
		app.appendChild(GR.charts(r, v));
		app.appendChild(GR.el('h2', {}, ['Launch flame graph']));
		app.appendChild(GR.flame(v.flame));
		if (v.nvtx) {
			app.appendChild(GR.el('h2', {}, ['NVTX range flame graph']));
			app.appendChild(GR.flame(v.nvtx.flame));
		}
		app.appendChild(GR.el('h2', {}, ['Device memory']));
		app.appendChild(GR.memory(data.memory, r));
	}

	function drawAll() {
		GR.drawers.forEach(function (d) { d(); });
	}

	function main() {
		var app = document.getElementById('app'), data;
		try {
			data = JSON.parse(document.getElementById('gpurec-data').textContent);
		} catch (e) {
			app.textContent = 'this report carries no readable data: ' + e.message;
			return;
		}
		app.replaceChildren();
		if (data.schema !== 'gpurec-html-1') {
			app.textContent = 'this page reads data of schema gpurec-html-1, not ' + data.schema;
			return;
		}
		if (data.kind === 'diff') {
			GR.firstTs = data.base.report.first_ts;
			header(data, app, null);
			GR.diffPage(data, app);
		} else {
			GR.firstTs = data.report.first_ts;
			reportPage(data, app);
		}
		drawAll();
		var pending = 0;
		window.addEventListener('resize', function () {
			clearTimeout(pending);
			pending = setTimeout(drawAll, 150);
		});
		document.documentElement.setAttribute('data-ready', 'true');
	}

	if (document.readyState === 'loading')
		document.addEventListener('DOMContentLoaded', main);
	else
		main();
})();
