#!/usr/bin/env python3
"""Writes the grammar tests (tests/*.oth) from the cases below: each source
line with the tokens to assert and their scopes. Run it after changing a
case: `python3 tests/make.py`. Assertion lines are `#` comments, which .oth
files have too, so each test file is still .oth."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

def render(title, lines):
    out = [f'# SYNTAX TEST "source.oth" "{title}"']
    for src, marks in lines:
        out.append(src)
        for needle, scope, *nth in marks:
            at = -1
            for _ in range((nth[0] if nth else 0) + 1):
                at = src.index(needle, at + 1)
            if at == 0:
                out.append("# " + "<" + "-" * len(needle) + " " + scope)
            else:
                out.append("#" + " " * (at - 1) + "^" * len(needle) + " " + scope)
    return "\n".join(out) + "\n"

HEADER = [
    ('import { Console, Files as F } from "othismo:env"', [
        ("import", "keyword.control.import.oth"), ("Console", "entity.name.type.oth"),
        ("as", "keyword.control.import.oth"), ("from", "keyword.control.import.oth"),
        ('"othismo:env"', "string.quoted.double.oth")]),
    ("## A doc comment.", [("## A doc comment.", "comment.line.documentation.oth")]),
    ("export schemas application/bson {", [
        ("export", "storage.modifier.oth"), ("schemas", "storage.type.oth"),
        ("application/bson", "support.type.content-type.oth"),
        ("{", "punctuation.section.braces.oth")]),
    ("  message Greeting {", [("message", "storage.type.oth"), ("Greeting", "entity.name.type.oth")]),
    ("    prefix: string", [("prefix", "variable.other.oth"), (":", "keyword.operator.oth"),
                            ("string", "support.type.primitive.oth")]),
    ("    tags?: [i32]", [("?", "keyword.operator.oth"), ("[", "punctuation.section.brackets.oth"),
                          ("i32", "support.type.primitive.oth")]),
    ("  }", []),
    ("  enum Mood { happy, sad }", [("enum", "storage.type.oth"), (",", "punctuation.separator.comma.oth")]),
    ("}", []),
    ("native object Greeter {", [("native", "storage.modifier.oth"), ("object", "storage.type.oth"),
                                 ("Greeter", "entity.name.type.oth")]),
    ("  serves {", [("serves", "keyword.other.oth")]),
    ("    /greeting  write Greeting   # a trailing comment", [
        ("/greeting", "string.unquoted.path.oth"), ("write", "keyword.other.verb.oth"),
        ("# a trailing comment", "comment.line.number-sign.oth")]),
    ("    /users/{id}/** operator read -> text/plain; charset=utf-8 *", [
        ("/users/{id}/**", "string.unquoted.path.oth"), ("operator", "storage.modifier.oth"),
        ("read", "keyword.other.verb.oth"), ("->", "keyword.operator.oth"),
        ("text/plain; charset=utf-8", "support.type.content-type.oth"),
        ("*", "keyword.operator.oth", 2)]),
    ("    / stat -> Stat", [("/", "string.unquoted.path.oth"), ("stat", "keyword.other.verb.oth"),
                            ("Stat", "entity.name.type.oth")]),
    ("  }", []),
    ("  needs /dev/cons {", [("needs", "keyword.other.oth"), ("/dev/cons", "string.unquoted.path.oth")]),
    ("    / write text/plain | application/octet-stream", [
        ("|", "keyword.operator.oth"), ("application/octet-stream", "support.type.content-type.oth")]),
    ("    / watch -> */* *", [("watch", "keyword.other.verb.oth"), ("*/*", "support.type.content-type.oth"),
                              ("*", "keyword.operator.oth", 2)]),
    ("  }", []),
    ("}", []),
]

IMAGE = [
    ("image Hello {", [("image", "storage.type.oth"), ("Hello", "entity.name.type.oth")]),
    ('  require greeting : Greeting = Greeting { prefix: "Hi, \\"you\\"", count: -12, ratio: 0.5, on: true, none: null }', [
        ("require", "keyword.other.oth"), ("greeting", "variable.other.oth"),
        (":", "keyword.operator.oth"), ("=", "keyword.operator.oth"),
        ('"Hi, \\"you\\""', "string.quoted.double.oth"), ('\\"', "constant.character.escape.oth"),
        ("-12", "constant.numeric.oth"), ("0.5", "constant.numeric.oth"),
        ("true", "constant.language.oth"), ("null", "constant.language.oth")]),
    ("  instance greeter = Greeter {", [("instance", "keyword.other.oth"), ("greeter", "variable.other.oth")]),
    ("    mount /dev/cons /cons readonly", [
        ("mount", "keyword.other.oth"), ("/dev/cons", "string.unquoted.path.oth"),
        ("/cons", "string.unquoted.path.oth", 1), ("readonly", "storage.modifier.oth")]),
    ("    bind /out /dev/cons", [("bind", "keyword.other.oth"), ("/out", "string.unquoted.path.oth")]),
    ("  }", []),
    ("  export /greeting /greeter/greeting", [("export", "storage.modifier.oth"),
                                              ("/greeter/greeting", "string.unquoted.path.oth")]),
    ("  write /greeter/greeting greeting", [("write", "keyword.other.verb.oth")]),
    ('  write /cons text/html "<p>0x1F</p>"', [("text/html", "support.type.content-type.oth"),
                                               ('"<p>0x1F</p>"', "string.quoted.double.oth")]),
    ("  create /x 0x1F", [("create", "keyword.other.verb.oth"), ("0x1F", "constant.numeric.oth")]),
    ("  remove /x", [("remove", "keyword.other.verb.oth")]),
    ("  list /x", [("list", "keyword.other.verb.oth")]),
    ("  read /x", [("read", "keyword.other.verb.oth")]),
    ("}", []),
]

for name, title, lines in [("header.oth", "imports, schemas, objects and entries", HEADER),
                           ("image.oth", "images: slots, instances, wiring, exports, startup", IMAGE)]:
    with open(os.path.join(HERE, name), "w") as f:
        f.write(render(title, lines))
