//! Statement paths: how every error, lint and sanitizer finding names a statement (`body[3].then[1]`).

/// The text of a statement path from its segments: `body`, `[3]`, `then`, `[1]` → `body[3].then[1]`
/// (a dot before each named segment but the first, none before an index).
pub fn path_text(segments: &[String]) -> String {
    let mut text = String::new();
    for (i, segment) in segments.iter().enumerate() {
        if i > 0 && !segment.starts_with('[') {
            text.push('.');
        }
        text.push_str(segment);
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn indices_attach_and_names_are_dotted() {
        let segments: Vec<String> = ["body", "[3]", "then", "[1]"].map(String::from).to_vec();
        assert_eq!(super::path_text(&segments), "body[3].then[1]");
        assert_eq!(super::path_text(&[]), "");
    }
}
