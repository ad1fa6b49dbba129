// Clicker: each line typed at the console is a click on the counter.
import { OnText, run } from "othismo"
import { ClickerServer, cons, counter } from "./Counter.oth"

class Clicker extends ClickerServer {
  start(): void {
    cons.watch(new OnLine())                    // watch / -> text/plain*
  }
}

class OnLine extends OnText {
  text(line: string, done: bool): void {
    counter.writeClick(line, null)              // write /click text/plain
  }
}

run(new Clicker())
