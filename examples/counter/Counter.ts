// Counter: counts the clicks it is sent and prints the count.
import { Request, run } from "othismo"
import { CounterServer, cons } from "./Counter.oth"

class Counter extends CounterServer {
  count: i32 = 0

  writeClick(req: Request, what: string): void {   // write /click text/plain
    this.count += 1
    cons.write(this.count.toString() + ": " + what, null)
    req.end()
  }
}

run(new Counter())
