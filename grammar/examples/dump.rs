fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(&path).unwrap();
    let p = oth_syntax::parse_file(&src);
    println!("{:#?}", p.tree);
    for e in &p.errors { println!("{:?}", e); }
    for item in &p.tree.items { if let oth_syntax::ast::Item::Schemas(s) = item { let b = oth_syntax::parse_bson(&s.body, s.body_offset); println!("{:#?}", b.tree); for e in &b.errors { println!("{:?}", e); } } }
}
