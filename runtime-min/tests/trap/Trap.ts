import { Request, run } from "othismo"
import { TrapServer } from "./Trap.oth"

class Trap extends TrapServer {
  write(req: Request, text: string): void {
    unreachable()
  }
}

run(new Trap())
