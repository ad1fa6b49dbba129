// A small test host for AssemblyScript modules built by the tests: it
// instantiates the module with host calls that must not be called, runs
// `_start`, then calls the module's test exports.
//
//   node host.cjs MODULE.wasm decode IN_DIR OUT_DIR   each IN_DIR/*.bin → OUT_DIR/*.out
//   node host.cjs MODULE.wasm make OUT_DIR            each make(i) → OUT_DIR/i.out
//   node host.cjs MODULE.wasm serve REQUESTS.json       each request to othismo_serve;
//                                                     prints the answer/fail calls as JSON lines
//   node host.cjs MODULE.wasm stress IN.bin N          decodes IN.bin N times under the collector
//   node host.cjs MODULE.wasm call NAME                calls the export NAME (no arguments);
//                                                     prints what it returns, if anything
//
// An .out file is one status byte, then the output bytes. A trap is reported
// and exits 1.
const fs = require("fs")
const path = require("path")

const [, , wasmPath, mode, ...dirs] = process.argv
const wasmModule = new WebAssembly.Module(fs.readFileSync(wasmPath))
let instance
function readString(ptr) {
  // AssemblyScript strings: UTF-16, length (bytes) at ptr - 4. A release
  // build passes no file name to `abort` (0).
  if (ptr === 0) return "?"
  const mem = new Uint8Array(instance.exports.memory.buffer)
  const len = new Uint32Array(mem.buffer, ptr - 4, 1)[0]
  return Buffer.from(mem.slice(ptr, ptr + len)).toString("utf16le")
}
const unexpected = (name) => () => { throw new Error(`host call ${name} was not expected`) }
const calls = []
const bytesAt = (ptr, len) => Buffer.from(new Uint8Array(instance.exports.memory.buffer, ptr, len))
const serving = {
  answer(id, done, tp, tl, dp, dl) {
    calls.push({ id, call: "answer", done, type: bytesAt(tp, tl).toString(), text: bytesAt(dp, dl).toString() })
  },
  fail(id, errno, cp, cl, dp, dl) {
    calls.push({ id, call: "fail", errno, code: bytesAt(cp, cl).toString() })
  },
}
const imports = {
  env: {
    abort(msg, file, line, col) {
      throw new Error(`abort: ${readString(msg)} at ${readString(file)}:${line}:${col}`)
    },
  },
  othismo: Object.fromEntries(
    ["request", "cancel", "answer", "fail", "forward", "bind", "unmount", "expose"].map((n) => [
      n,
      mode === "serve" && serving[n] ? serving[n] : unexpected(n),
    ]),
  ),
}
instance = new WebAssembly.Instance(wasmModule, imports)
const x = instance.exports
x._start()

function output(status) {
  const ptr = x.outputPtr()
  const len = x.outputLen()
  const bytes = Buffer.from(new Uint8Array(x.memory.buffer, ptr, len))
  return Buffer.concat([Buffer.from([status]), bytes])
}

try {
  if (mode === "decode") {
    const [inDir, outDir] = dirs
    for (const name of fs.readdirSync(inDir).filter((n) => n.endsWith(".bin")).sort()) {
      const data = fs.readFileSync(path.join(inDir, name))
      const ptr = x.input(data.length)
      new Uint8Array(x.memory.buffer, ptr, data.length).set(data)
      const status = x.decode(data.length)
      fs.writeFileSync(path.join(outDir, name.replace(/\.bin$/, ".out")), output(status))
    }
  } else if (mode === "make") {
    const [outDir] = dirs
    for (let i = 0; i < x.makeCount(); i++) {
      x.make(i)
      fs.writeFileSync(path.join(outDir, `${i}.out`), output(1))
    }
  } else if (mode === "serve") {
    // The runtime's side of a delivery: each string and byte run goes into
    // a buffer from othismo_alloc.
    const put = (bytes) => {
      if (bytes.length === 0) return [0, 0]
      const ptr = x.othismo_alloc(bytes.length)
      new Uint8Array(x.memory.buffer, ptr, bytes.length).set(bytes)
      return [ptr, bytes.length]
    }
    x.othismo_start()
    const requests = JSON.parse(fs.readFileSync(dirs[0], "utf8"))
    requests.forEach((r, i) => {
      const [pp, pl] = put(Buffer.from(r.path))
      const [tp, tl] = r.type === undefined ? [0, 0] : put(Buffer.from(r.type))
      const [dp, dl] = r.data === undefined ? [0, 0] : put(Buffer.from(r.data))
      x.othismo_serve(i + 1, r.verb, r.flags || 0, pp, pl, tp, tl, dp, dl)
    })
    for (const c of calls) console.log(JSON.stringify(c))
  } else if (mode === "stress") {
    // stress IN.bin N: prints how many of N decodes re-encode differently.
    const data = fs.readFileSync(dirs[0])
    const ptr = x.input(data.length)
    new Uint8Array(x.memory.buffer, ptr, data.length).set(data)
    console.log(x.stress(data.length, Number(dirs[1])))
  } else if (mode === "call") {
    const result = x[dirs[0]]()
    if (result !== undefined) console.log(result)
  } else {
    throw new Error(`unknown mode ${mode}`)
  }
} catch (e) {
  console.error(`trap: ${e.message}`)
  process.exit(1)
}
