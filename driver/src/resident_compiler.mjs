// The AssemblyScript compiler kept running: othc starts this once and sends
// it one compilation after another, so node starts and loads the compiler
// once, and its JIT has warmed up for every module after the first (a
// module compiles three to ten times faster the second time in a process).
//
// Started as `node --input-type=module --eval <this> <path of asc.js>`.
// Protocol, one JSON document per line:
//   request on stdin:   {"dir": "<folder to compile in>", "args": ["<asc argument>", ...]}
//   response on stdout: {"ok": true|false, "output": "<what asc printed>", "retired": true|false}
// Requests are answered one at a time, in order. The process ends when its
// stdin does, and after answering a request during which the compiler threw
// (its state is then not to be trusted; the response says `retired`).
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

// Stdout carries the responses alone: anything else that would write there
// (binaryen reports some problems with console.log) goes to stderr.
const respond = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);

const asc = await import(pathToFileURL(process.argv[1]).href);

// `retired`: this process ends after this response.
function reply(ok, output, retired = false) {
  respond(JSON.stringify({ ok, output, retired }) + "\n");
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    reply(false, `othc's compiler process received a request it cannot read: ${e.message}`);
    continue;
  }
  let thrown = null;
  try {
    // The compiler names files relative to where it runs: each request
    // runs in its own folder, as a compiler started there would.
    process.chdir(request.dir);
    const { error, stdout, stderr } = await asc.main(request.args, {});
    reply(!error, stdout.toString() + stderr.toString());
  } catch (e) {
    thrown = e;
    reply(false, `the AssemblyScript compiler failed: ${e && e.stack ? e.stack : e}`, true);
  }
  if (thrown) break;
}
process.exit(0);
