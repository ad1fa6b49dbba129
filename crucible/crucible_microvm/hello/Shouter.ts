// Shouter: writes whatever it is sent to the console, in capitals.
import { Request, run } from "othismo"
import { ShouterServer, cons } from "./Shouter.oth"

class Shouter extends ShouterServer {
  write(req: Request, text: string): void {   // write / text/plain
    cons.write(text.toUpperCase(), null)
    req.end()
  }
}

run(new Shouter())
