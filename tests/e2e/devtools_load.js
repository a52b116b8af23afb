// Loads a Chrome trace JSON with the trace loader of Chrome DevTools' Performance panel
// (SDK.TracingModel, from the chrome-devtools-frontend that the npm package
// devtools-timeline-model ships), offline. Prints one JSON line per thread as the viewer sees
// it: {pid, process, tid, thread, phases: {ph: count}}, then {problem} for each complaint the
// loader logged. usage: NODE_PATH=DIR/node_modules node devtools_load.js TRACE.json
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const dir = path.dirname(require.resolve('devtools-timeline-model'));
const problems = [];
const ctx = vm.createContext({require, global, console, __dirname: dir, P: problems});
new vm.Script(fs.readFileSync(dir + '/lib/timeline-model.js', 'utf8')).runInContext(ctx);
vm.runInContext('Common.console = {error: m => P.push(String(m)), warn: m => P.push(String(m)),' +
		' log: () => {}}', ctx);
const SDK = vm.runInContext('SDK', ctx);
const Bindings = vm.runInContext('Bindings', ctx);
const saved = console.error;
console.error = m => problems.push(String(m));
const model = new SDK.TracingModel(new Bindings.TempFileBackingStorage('tracing'));
model.setEventsForTest(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).traceEvents);
console.error = saved;
for (const p of model.sortedProcesses()) {
	for (const t of p.sortedThreads()) {
		const phases = {};
		for (const e of t.events())
			phases[e.phase] = (phases[e.phase] || 0) + 1;
		console.log(JSON.stringify({pid: p.id(), process: p.name(), tid: t.id(),
					    thread: t.name(), phases}));
	}
}
for (const m of problems)
	console.log(JSON.stringify({problem: m}));
