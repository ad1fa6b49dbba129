// The AssemblyScript compiler kept running: othc starts this once and sends
// it one compilation after another, so node starts and loads the compiler
// once, and its JIT has warmed up for every module after the first (a
// module compiles two to ten times faster the second time in a process).
//
// Started as `node --input-type=module --eval <this> <path of asc.js>`, it
// answers requests on its stdin; with `--listen <socket path>` after that,
// it answers each connection to that Unix socket (`othc --watch` keeps one
// for the builds it runs) and says `listening` on stdout once it does.
// Protocol, one JSON document per line:
//   request:  {"dir": "<folder to compile in>", "args": ["<asc argument>", ...]}
//   response: {"ok": true|false, "output": "<what asc printed>", "retired": true|false}
// Requests are answered one at a time, in the order they came, whoever sent
// them. The process ends when its stdin does, and after answering a request
// during which the compiler threw (its state is then not to be trusted;
// the response says `retired`).
import { createInterface } from "node:readline";
import { createServer } from "node:net";
import { rmdirSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";

// Stdout carries the responses (or the `listening` line) alone: anything
// else that would write there (binaryen reports some problems with
// console.log) goes to stderr.
const stdout = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);

const asc = await import(pathToFileURL(process.argv[1]).href);
const socket = process.argv[2] === "--listen" ? process.argv[3] : null;

// The socket's folder was made for it (by othc, for this user alone):
// both go.
function end() {
  if (socket) {
    try {
      unlinkSync(socket);
      rmdirSync(dirname(socket));
    } catch {}
  }
  process.exit(0);
}

// The compiler runs in the process's current folder: one at a time.
let turn = Promise.resolve();

function serve(input, write) {
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (line.trim() !== "") turn = turn.then(() => answer(line, write));
  });
  return lines;
}

async function answer(line, write) {
  const reply = (ok, output, retired = false) =>
    write(JSON.stringify({ ok, output, retired }) + "\n");
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    reply(false, `othc's compiler process received a request it cannot read: ${e.message}`);
    return;
  }
  try {
    // The compiler names files relative to where it runs: each request
    // runs in its own folder, as a compiler started there would.
    process.chdir(request.dir);
    const { error, stdout, stderr } = await asc.main(request.args, {});
    reply(!error, stdout.toString() + stderr.toString());
  } catch (e) {
    reply(false, `the AssemblyScript compiler failed: ${e && e.stack ? e.stack : e}`, true);
    end();
  }
}

if (socket) {
  const server = createServer((connection) => {
    // A client gone (a build stopped by `--watch`) before its answer.
    connection.on("error", () => {});
    serve(connection, (text) => {
      if (!connection.destroyed) connection.write(text);
    });
  });
  server.on("error", (e) => {
    process.stderr.write(`othc's compiler process cannot listen on ${socket}: ${e.message}\n`);
    process.exit(1);
  });
  server.listen(socket, () => stdout("listening\n"));
  // Its parent gone, or stopped from the terminal: the socket goes too.
  process.stdin.on("end", end);
  process.stdin.on("error", end);
  process.stdin.resume();
  process.on("SIGINT", end);
  process.on("SIGTERM", end);
} else {
  serve(process.stdin, stdout).on("close", () => turn.then(end));
}
