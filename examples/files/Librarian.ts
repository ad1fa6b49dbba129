// Librarian: lists the shelf when it starts, then, for each title typed at
// the console, looks it up (stat) and reads it out.
import { OnStat, OnText, Payload, Status, StatRecord, run } from "othismo"
import { BooksClient, LibrarianServer, cons } from "./Librarian.oth"

// A pattern need (`/books/**`) gets a client class, made with its mount point.
const books = new BooksClient("/books")

class Librarian extends LibrarianServer {
  start(): void {
    cons.write("On the shelf:", null)
    books.list("/", new OnShelf())            // list /books -> Stat*
    cons.watch(new OnTitle())                 // watch /dev/cons -> text/plain*
  }
}

/** Each entry of the listing, as it streams in. */
class OnShelf extends OnStat {
  stat(s: StatRecord, done: bool): void {
    if (s.isDirectory()) cons.write("  " + s.name + "/", null)
    else cons.write("  " + s.name + " (" + s.length.toString() + " bytes)", null)
  }

  finished(): void {
    cons.write("Type a title to read it.", null)
  }

  error(status: Status, description: string): void {
    cons.write("cannot list the shelf: " + status.code + ": " + description, null)
  }
}

/** A title from the console: look it up first. */
class OnTitle extends OnText {
  text(title: string, done: bool): void {
    books.stat("/" + title, new OnFound(title))
  }
}

class OnFound extends OnStat {
  constructor(public title: string) { super() }

  stat(s: StatRecord, done: bool): void {
    if (s.isDirectory()) {
      cons.write(this.title + " is a shelf of its own; try " + this.title + "/...", null)
      return
    }
    cons.write("== " + this.title + " (" + s.type + ")", null)
    books.read("/" + this.title, new OnPages(this.title))
  }

  error(status: Status, description: string): void {
    cons.write("no " + this.title + " here: " + status.code, null)
  }
}

/** A book's parts, joined: a character may span two of them. */
class OnPages extends OnText {
  pages: ArrayBuffer = new ArrayBuffer(0)

  constructor(public title: string) { super() }

  deliver(payload: Payload | null, done: bool): void {
    if (payload != null) {
      const joined = new ArrayBuffer(this.pages.byteLength + payload.data.byteLength)
      memory.copy(changetype<usize>(joined), changetype<usize>(this.pages), <usize>this.pages.byteLength)
      memory.copy(changetype<usize>(joined) + <usize>this.pages.byteLength, changetype<usize>(payload.data), <usize>payload.data.byteLength)
      this.pages = joined
    }
    if (done) cons.write(String.UTF8.decode(this.pages, false).trimEnd(), null)
  }

  error(status: Status, description: string): void {
    cons.write("cannot read " + this.title + ": " + status.code, null)
  }
}

run(new Librarian())
