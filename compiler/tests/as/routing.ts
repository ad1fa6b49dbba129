// A server built on the generated KitchenServer (fixtures/codegen/everything.oth):
// a few methods implemented, each answering with its name and arguments, so
// tests/codegen_routing.rs can see where each request went and what the
// generated base answered by itself.

import { Payload, Request, run } from "othismo"
import { KitchenServer, Nested, Note } from "./everything.oth"

class Kitchen extends KitchenServer {
  read(req: Request): void {
    req.answerText("read")
  }

  readItems(req: Request, id: string): void {
    req.answerText("readItems " + id)
  }

  readItemsSpecial(req: Request): void {
    req.answerText("readItemsSpecial")
  }

  readFiles(req: Request, rest: string): void {
    req.answerText("readFiles " + rest)
  }

  writeItemsWithNote(req: Request, id: string, body: Note): void {
    req.answerText("writeItemsWithNote " + id + " " + body.text)
  }

  writeItemsWithNested(req: Request, id: string, body: Nested): void {
    req.answerText("writeItemsWithNested " + id + " " + body.inner.label)
  }

  removeItemsTags(req: Request, id: string, tag: string): void {
    req.answerText("removeItemsTags " + id + " " + tag)
  }

  writeRaw(req: Request, body: Payload): void {
    req.answerText("writeRaw " + body.contentType)
  }

  readTicks(req: Request): void {
    req.answerText("tick 1", false)
    req.answerText("tick 2", true)
  }
}

run(new Kitchen())
