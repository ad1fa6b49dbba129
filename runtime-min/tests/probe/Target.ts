import { Request, run } from "othismo"
import { TargetServer } from "./Target.oth"

class Target extends TargetServer {
  readOk(req: Request): void {
    req.answerText("hello")
  }

  writeRo(req: Request, text: string): void {
    req.end()
  }

  writeOp(req: Request, text: string): void {
    req.end()
  }
}

run(new Target())
