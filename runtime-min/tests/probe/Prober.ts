import { Answers, Payload, Status, Verb, run, send } from "othismo"
import { ProberServer, cons } from "./Prober.oth"

class Report extends Answers {
  constructor(public label: string) {
    super()
  }

  deliver(p: Payload | null, done: bool): void {
    if (p != null) cons.write(this.label + ": ok " + p.asText(), null)
    else if (done) cons.write(this.label + ": ok", null)
  }

  error(s: Status, description: string): void {
    cons.write(this.label + ": " + s.errno.toString() + " " + s.code, null)
  }
}

class Prober extends ProberServer {
  start(): void {
    send(Verb.Read, "/target/ok", null, new Report("read /target/ok"))
    send(Verb.Read, "/target/missing", null, new Report("read /target/missing"))
    send(Verb.Remove, "/target/ok", null, new Report("remove /target/ok"))
    send(Verb.Write, "/target/ro", Payload.text("x"), new Report("write /target/ro"))
    send(Verb.Write, "/target/op", Payload.text("x"), new Report("write /target/op"))
    send(Verb.Stat, "/target/ok", null, new Report("stat /target/ok"))
    send(Verb.Read, "/target/../x", null, new Report("read /target/../x"))
    send(Verb.Read, "/elsewhere", null, new Report("read /elsewhere"))
  }
}

run(new Prober())
