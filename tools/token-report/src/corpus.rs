//! Corpus generators: each kind is a list of realistic lines, made from a seeded PRNG (no network, no files).

use crate::rng::Rng;
use crate::words::*;

/// One corpus kind: its name and its generator.
pub struct Kind {
    /// The kind's name, also its file name under `corpus/` (`<name>.txt`).
    pub name: &'static str,
    /// What the kind is, for the report.
    pub about: &'static str,
    generate: fn(&mut Rng, usize) -> Vec<String>,
}

/// Every kind, in report order.
pub const KINDS: &[Kind] = &[
    Kind { name: "rust", about: "Rust source", generate: rust },
    Kind { name: "python", about: "Python source", generate: python },
    Kind { name: "prose", about: "English prose, wrapped and unwrapped paragraphs", generate: prose },
    Kind { name: "markdown", about: "Markdown: headings, lists, tables, links, code fences", generate: markdown },
    Kind { name: "yaml", about: "YAML configuration", generate: yaml },
    Kind { name: "json", about: "minified JSON (JSON Lines and long single-line arrays)", generate: json },
    Kind { name: "base64", about: "base64 (MIME and PEM lines, long single lines, data URLs)", generate: base64 },
    Kind { name: "csv", about: "CSV of numbers (integers, decimals, exponents, dates)", generate: csv },
    Kind { name: "chinese", about: "Chinese text (simplified, with some ASCII terms)", generate: chinese },
    Kind { name: "japanese", about: "Japanese text (kanji, hiragana, katakana)", generate: japanese },
    Kind { name: "logs", about: "application logs with ANSI colour codes", generate: logs },
    Kind {
        name: "unicode",
        about: "other scripts and symbols: accented Latin, Vietnamese, Cyrillic, Greek, Hebrew, Arabic, Hindi, Thai, \
                Korean, emoji, box-drawing trees",
        generate: unicode,
    },
];

impl Kind {
    /// Lines of this kind, about `target_bytes` of UTF-8 in all.
    pub fn generate(&self, seed: u64, target_bytes: usize) -> Vec<String> {
        let mut rng = Rng::new(seed, self.name);
        (self.generate)(&mut rng, target_bytes)
    }
}

fn bytes(lines: &[String]) -> usize {
    lines.iter().map(|line| line.len() + 1).sum()
}

// ---------------------------------------------------------------- shared pieces

fn sentence(rng: &mut Rng, min_words: usize, max_words: usize) -> String {
    let count = rng.between(min_words, max_words);
    let mut out = String::new();
    for position in 0..count {
        let mut word = if rng.chance(4) {
            rng.pick(NAMES).to_string()
        } else if rng.chance(3) {
            match rng.range(0, 4) {
                0 => rng.range(2, 99).to_string(),
                1 => format!("{}", rng.range(1900, 2030)),
                2 => format!("{}.{}", rng.range(0, 99), rng.range(0, 9)),
                3 => format!("{}%", rng.range(1, 100)),
                _ => format!("{},{:03}", rng.range(1, 999), rng.range(0, 999)),
            }
        } else {
            rng.pick_zipf(ENGLISH).to_string()
        };
        if position == 0 {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                word = first.to_uppercase().collect::<String>() + chars.as_str();
            }
        } else {
            out.push(' ');
        }
        if position > 0 && rng.chance(2) {
            word = format!("\"{word}");
        }
        if position > 0 && rng.chance(2) {
            word = format!("({word}");
        }
        out.push_str(&word);
        if position + 1 < count && rng.chance(7) {
            out.push(if rng.chance(85) { ',' } else { ';' });
        }
        if rng.chance(1) {
            out.push_str(" -");
        }
    }
    out.push(*rng.pick(&[&'.', &'.', &'.', &'.', &'?', &'!', &':']));
    out
}

fn paragraph(rng: &mut Rng, min_sentences: usize, max_sentences: usize) -> String {
    let sentences = rng.between(min_sentences, max_sentences);
    let mut out = String::new();
    for index in 0..sentences {
        if index > 0 {
            out.push(' ');
        }
        out.push_str(&sentence(rng, 4, 28));
    }
    out
}

/// Wraps `text` at `width` columns on spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn snake(rng: &mut Rng, parts: usize) -> String {
    let mut out = String::new();
    for index in 0..parts {
        if index > 0 {
            out.push('_');
        }
        out.push_str(rng.pick_zipf(CODE_WORDS));
    }
    out
}

fn ident(rng: &mut Rng) -> String {
    let parts = *rng.pick(&[&1usize, &1, &1, &2, &2, &3]);
    snake(rng, parts)
}

fn camel(rng: &mut Rng) -> String {
    let mut out = rng.pick(TYPE_WORDS).to_string();
    if rng.chance(40) {
        let word = rng.pick(CODE_WORDS);
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push_str(&(first.to_uppercase().collect::<String>() + chars.as_str()));
        }
    }
    out
}

fn hex(rng: &mut Rng, digits: usize) -> String {
    (0..digits)
        .map(|_| char::from_digit(rng.range(0, 15) as u32, 16).unwrap_or('0'))
        .collect()
}

fn uuid(rng: &mut Rng) -> String {
    format!(
        "{}-{}-{}-{}-{}",
        hex(rng, 8),
        hex(rng, 4),
        hex(rng, 4),
        hex(rng, 4),
        hex(rng, 12)
    )
}

fn timestamp(rng: &mut Rng) -> String {
    format!(
        "{}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        rng.range(2019, 2026),
        rng.range(1, 12),
        rng.range(1, 28),
        rng.range(0, 23),
        rng.range(0, 59),
        rng.range(0, 59),
        rng.range(0, 999)
    )
}

fn float(rng: &mut Rng) -> String {
    match rng.range(0, 5) {
        0 => format!("{:.2}", rng.unit() * 1000.0),
        1 => format!("{:.6}", rng.unit() * 2.0 - 1.0),
        2 => format!("{}", rng.unit() * 100.0),
        3 => format!("{:.3e}", rng.unit() * 1e-3),
        4 => format!("-{:.4}", rng.unit() * 50.0),
        _ => format!("{}", rng.range(0, 100_000)),
    }
}

fn indent(depth: usize, width: usize) -> String {
    " ".repeat(depth * width)
}

// ---------------------------------------------------------------- Rust

fn rust_expr(rng: &mut Rng) -> String {
    match rng.range(0, 12) {
        0 => ident(rng),
        1 => format!("{}.{}()", ident(rng), ident(rng)),
        2 => format!(
            "{}.{}({}, {})",
            ident(rng),
            ident(rng),
            ident(rng),
            rng.range(0, 4096)
        ),
        3 => format!("&{}[{}..]", ident(rng), ident(rng)),
        4 => rng.range(0, 100_000).to_string(),
        5 => format!("\"{}\"", sentence(rng, 1, 6).trim_end_matches('.')),
        6 => format!("{} + {}", ident(rng), rng.range(1, 64)),
        7 => format!("Some({})", ident(rng)),
        8 => format!("{}::{}(&{})", camel(rng), ident(rng), ident(rng)),
        9 => format!(
            "{}.iter().map(|{}| {}.{}).collect::<Vec<_>>()",
            ident(rng),
            "item",
            "item",
            ident(rng)
        ),
        10 => format!(
            "{}.saturating_sub({}).min({})",
            ident(rng),
            ident(rng),
            rng.range(1, 2000)
        ),
        11 => format!("{}::new()", camel(rng)),
        _ => format!("{}.{}.len() as u64", ident(rng), ident(rng)),
    }
}

fn rust_block(rng: &mut Rng, depth: usize, lines: &mut Vec<String>, budget: usize) {
    let statements = rng.between(1, budget.max(1));
    for _ in 0..statements {
        let pad = indent(depth, 4);
        match rng.range(0, 13) {
            0 | 1 => lines.push(format!("{pad}let {} = {};", ident(rng), rust_expr(rng))),
            2 => lines.push(format!(
                "{pad}let mut {}: {} = {}::default();",
                ident(rng),
                camel(rng),
                camel(rng)
            )),
            3 => lines.push(format!(
                "{pad}{}.{}({})?;",
                ident(rng),
                ident(rng),
                rust_expr(rng)
            )),
            4 if depth < 5 => {
                lines.push(format!("{pad}if {} > {} {{", ident(rng), rust_expr(rng)));
                rust_block(rng, depth + 1, lines, budget / 2);
                if rng.chance(40) {
                    lines.push(format!("{pad}}} else {{"));
                    rust_block(rng, depth + 1, lines, budget / 2);
                }
                lines.push(format!("{pad}}}"));
            }
            5 if depth < 5 => {
                lines.push(format!(
                    "{pad}for {} in {}.iter() {{",
                    ident(rng),
                    ident(rng)
                ));
                rust_block(rng, depth + 1, lines, budget / 2);
                lines.push(format!("{pad}}}"));
            }
            6 if depth < 5 => {
                lines.push(format!("{pad}match {} {{", ident(rng)));
                let ty = camel(rng);
                for _ in 0..rng.between(2, 5) {
                    lines.push(format!(
                        "{pad}    {ty}::{}({}) => {},",
                        camel(rng),
                        ident(rng),
                        rust_expr(rng)
                    ));
                }
                lines.push(format!("{pad}    _ => {{}}"));
                lines.push(format!("{pad}}}"));
            }
            7 => lines.push(format!("{pad}// {}", sentence(rng, 3, 16))),
            8 => lines.push(format!(
                "{pad}return Err(Error::{}(format!(\"{} {{}}\", {})));",
                camel(rng),
                sentence(rng, 2, 8).trim_end_matches('.'),
                ident(rng)
            )),
            9 => lines.push(format!(
                "{pad}assert_eq!({}.len(), {});",
                ident(rng),
                rng.range(0, 20_000)
            )),
            10 => lines.push(format!(
                "{pad}println!(\"{}: {{:?}} ({{}} of {{}})\", {}, {}, {});",
                sentence(rng, 1, 5).trim_end_matches('.'),
                ident(rng),
                ident(rng),
                ident(rng)
            )),
            11 => lines.push(format!(
                "{pad}let {} = {}.{}().{}(|{}| {}.{} > {}).{}();",
                ident(rng),
                ident(rng),
                "iter",
                "filter",
                "entry",
                "entry",
                ident(rng),
                rng.range(0, 512),
                "count"
            )),
            _ => lines.push(format!("{pad}{} += {};", ident(rng), rust_expr(rng))),
        }
    }
}

fn rust(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        lines.push(format!("//! {}", sentence(rng, 6, 14)));
        lines.push(String::new());
        for _ in 0..rng.between(1, 4) {
            lines.push(format!(
                "use crate::{}::{{{}, {}}};",
                ident(rng),
                camel(rng),
                camel(rng)
            ));
        }
        lines.push("use std::collections::HashMap;".to_string());
        lines.push(String::new());
        if rng.chance(30) {
            // A long single line: a lookup table.
            let count = rng.between(32, 400);
            let entries: Vec<String> = (0..count).map(|_| format!("0x{}", hex(rng, 2))).collect();
            lines.push(format!(
                "const TABLE: [u8; {count}] = [{}];",
                entries.join(", ")
            ));
            lines.push(String::new());
        }
        let ty = camel(rng);
        lines.push(format!("/// {}", sentence(rng, 5, 20)));
        lines.push("#[derive(Debug, Clone, PartialEq)]".to_string());
        lines.push(format!("pub struct {ty} {{"));
        for _ in 0..rng.between(2, 7) {
            lines.push(format!("    /// {}", sentence(rng, 3, 14)));
            lines.push(format!(
                "    pub {}: {},",
                ident(rng),
                rng.pick(&[
                    "u64",
                    "usize",
                    "String",
                    "Vec<u8>",
                    "Option<PathBuf>",
                    "HashMap<String, u64>",
                    "bool"
                ])
            ));
        }
        lines.push("}".to_string());
        lines.push(String::new());
        lines.push(format!("impl {ty} {{"));
        for _ in 0..rng.between(2, 5) {
            lines.push(format!("    /// {}", sentence(rng, 4, 18)));
            lines.push(format!(
                "    pub fn {}(&mut self, {}: &str, {}: u64) -> Result<{}, Error> {{",
                ident(rng),
                ident(rng),
                ident(rng),
                camel(rng)
            ));
            rust_block(rng, 2, &mut lines, 10);
            if rng.chance(15) {
                lines.push(format!(
                    "        assert!({} <= {}, \"{}\");",
                    ident(rng),
                    ident(rng),
                    paragraph(rng, 2, 6).replace('"', "'")
                ));
            }
            lines.push(format!("        Ok({}::new())", camel(rng)));
            lines.push("    }".to_string());
            lines.push(String::new());
        }
        lines.push("}".to_string());
        lines.push(String::new());
    }
    lines
}

// ---------------------------------------------------------------- Python

fn python_expr(rng: &mut Rng) -> String {
    match rng.range(0, 10) {
        0 => ident(rng),
        1 => format!("self.{}", ident(rng)),
        2 => format!(
            "{}({}, {}={})",
            ident(rng),
            ident(rng),
            ident(rng),
            rng.range(0, 1000)
        ),
        3 => format!("[{} for {} in {} if {}]", ident(rng), "x", ident(rng), "x"),
        4 => format!(
            "f\"{} {{{}}}\"",
            sentence(rng, 1, 6).trim_end_matches('.'),
            ident(rng)
        ),
        5 => format!(
            "{{\"{}\": {}, \"{}\": {}}}",
            ident(rng),
            rng.range(0, 100),
            ident(rng),
            ident(rng)
        ),
        6 => format!("{}.get(\"{}\", None)", ident(rng), ident(rng)),
        7 => float(rng),
        8 => format!("len({}) - {}", ident(rng), rng.range(1, 10)),
        _ => format!("'{}'", ident(rng)),
    }
}

fn python_block(rng: &mut Rng, depth: usize, lines: &mut Vec<String>, budget: usize) {
    for _ in 0..rng.between(1, budget.max(1)) {
        let pad = indent(depth, 4);
        match rng.range(0, 10) {
            0..=2 => lines.push(format!("{pad}{} = {}", ident(rng), python_expr(rng))),
            3 if depth < 5 => {
                lines.push(format!(
                    "{pad}if {} is not None and {} > {}:",
                    ident(rng),
                    ident(rng),
                    rng.range(0, 99)
                ));
                python_block(rng, depth + 1, lines, budget / 2);
                if rng.chance(30) {
                    lines.push(format!("{pad}else:"));
                    python_block(rng, depth + 1, lines, budget / 2);
                }
            }
            4 if depth < 5 => {
                lines.push(format!(
                    "{pad}for {}, {} in enumerate({}):",
                    "i",
                    ident(rng),
                    ident(rng)
                ));
                python_block(rng, depth + 1, lines, budget / 2);
            }
            5 => lines.push(format!("{pad}# {}", sentence(rng, 3, 16))),
            6 => lines.push(format!(
                "{pad}raise ValueError(f\"{} {{{}!r}}\")",
                sentence(rng, 2, 9).trim_end_matches('.'),
                ident(rng)
            )),
            7 => lines.push(format!(
                "{pad}logger.info(\"%s: %d\", {}, {})",
                ident(rng),
                ident(rng)
            )),
            8 if depth < 5 => {
                lines.push(format!("{pad}try:"));
                python_block(rng, depth + 1, lines, budget / 2);
                lines.push(format!("{pad}except (KeyError, IndexError) as exc:"));
                lines.push(format!("{pad}    return {}", python_expr(rng)));
            }
            _ => lines.push(format!("{pad}return {}", python_expr(rng))),
        }
    }
}

fn python(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        lines.push(format!("\"\"\"{}\"\"\"", sentence(rng, 5, 14)));
        lines.push(String::new());
        lines.push("from __future__ import annotations".to_string());
        lines.push(String::new());
        lines.push("import os".to_string());
        lines.push(format!(
            "from typing import {}, {}",
            rng.pick(&["Any", "Optional", "Iterator"]),
            "Dict"
        ));
        lines.push(String::new());
        if rng.chance(25) {
            let values: Vec<String> = (0..rng.between(20, 300))
                .map(|_| rng.range(0, 65535).to_string())
                .collect();
            lines.push(format!("WEIGHTS = [{}]", values.join(", ")));
            lines.push(String::new());
        }
        lines.push(String::new());
        lines.push(format!(
            "class {}({}):",
            camel(rng),
            rng.pick(&["object", "Exception", "Base", "dict"])
        ));
        lines.push(format!("    \"\"\"{}", sentence(rng, 5, 18)));
        lines.push(String::new());
        for wrapped in wrap(&paragraph(rng, 1, 3), 76) {
            lines.push(format!("    {wrapped}"));
        }
        lines.push("    \"\"\"".to_string());
        lines.push(String::new());
        for _ in 0..rng.between(2, 5) {
            if rng.chance(30) {
                lines.push("    @property".to_string());
            }
            lines.push(format!(
                "    def {}(self, {}: str, {}: int = {}) -> Optional[{}]:",
                ident(rng),
                ident(rng),
                ident(rng),
                rng.range(0, 100),
                camel(rng)
            ));
            lines.push(format!("        \"\"\"{}\"\"\"", sentence(rng, 4, 14)));
            python_block(rng, 2, &mut lines, 10);
            lines.push(String::new());
        }
        lines.push(String::new());
    }
    lines
}

// ---------------------------------------------------------------- prose and markdown

fn prose(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        let wrapped = rng.chance(50);
        let width = rng.between(60, 100);
        for _ in 0..rng.between(2, 6) {
            let text = paragraph(rng, 1, 9);
            if wrapped {
                lines.extend(wrap(&text, width));
            } else {
                lines.push(text);
            }
            lines.push(String::new());
        }
    }
    lines
}

fn markdown(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        lines.push(format!(
            "{} {}",
            "#".repeat(rng.between(1, 3)),
            sentence(rng, 2, 7).trim_end_matches('.')
        ));
        lines.push(String::new());
        for wrapped in wrap(&paragraph(rng, 1, 5), 80) {
            lines.push(wrapped);
        }
        lines.push(String::new());
        match rng.range(0, 3) {
            0 => {
                for _ in 0..rng.between(2, 8) {
                    lines.push(format!(
                        "- **{}**: {} See [{}](https://example.com/{}/{}#{}).",
                        ident(rng),
                        sentence(rng, 3, 15),
                        sentence(rng, 1, 3).trim_end_matches('.'),
                        ident(rng),
                        ident(rng),
                        ident(rng)
                    ));
                }
            }
            1 => {
                lines.push("| name | value | description |".to_string());
                lines.push("| --- | ---: | --- |".to_string());
                for _ in 0..rng.between(2, 10) {
                    lines.push(format!(
                        "| `{}` | {} | {} |",
                        ident(rng),
                        float(rng),
                        sentence(rng, 2, 10)
                    ));
                }
            }
            2 => {
                lines.push("```rust".to_string());
                rust_block(rng, 0, &mut lines, 8);
                lines.push("```".to_string());
            }
            _ => {
                for index in 1..=rng.between(2, 6) {
                    lines.push(format!(
                        "{index}. {} `{}`",
                        sentence(rng, 3, 12),
                        ident(rng)
                    ));
                }
            }
        }
        lines.push(String::new());
        if rng.chance(20) {
            lines.push(format!("> {}", paragraph(rng, 2, 6)));
            lines.push(String::new());
        }
    }
    lines
}

// ---------------------------------------------------------------- YAML

fn yaml(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        lines.push("---".to_string());
        lines.push(format!(
            "apiVersion: {}",
            rng.pick(&["apps/v1", "v1", "batch/v1", "networking.k8s.io/v1"])
        ));
        lines.push(format!(
            "kind: {}",
            rng.pick(&["Deployment", "Service", "ConfigMap", "CronJob", "Ingress"])
        ));
        lines.push("metadata:".to_string());
        lines.push(format!(
            "  name: {}-{}",
            ident(rng).replace('_', "-"),
            hex(rng, 5)
        ));
        lines.push(format!(
            "  namespace: {}",
            rng.pick(&["default", "production", "staging", "kube-system"])
        ));
        lines.push("  labels:".to_string());
        for _ in 0..rng.between(1, 4) {
            lines.push(format!(
                "    app.kubernetes.io/{}: {}",
                ident(rng).replace('_', "-"),
                ident(rng)
            ));
        }
        lines.push("  annotations:".to_string());
        lines.push(format!("    description: \"{}\"", sentence(rng, 4, 20)));
        lines.push("spec:".to_string());
        lines.push(format!("  replicas: {}", rng.range(1, 12)));
        lines.push("  template:".to_string());
        lines.push("    spec:".to_string());
        lines.push("      containers:".to_string());
        for _ in 0..rng.between(1, 3) {
            lines.push(format!("        - name: {}", ident(rng).replace('_', "-")));
            lines.push(format!(
                "          image: registry.example.com/{}/{}:{}.{}.{}@sha256:{}",
                ident(rng),
                ident(rng),
                rng.range(0, 9),
                rng.range(0, 30),
                rng.range(0, 99),
                hex(rng, 64)
            ));
            lines.push("          ports:".to_string());
            lines.push(format!(
                "            - containerPort: {}",
                rng.range(80, 9999)
            ));
            lines.push("          env:".to_string());
            for _ in 0..rng.between(1, 6) {
                lines.push(format!("            - name: {}", ident(rng).to_uppercase()));
                lines.push(format!(
                    "              value: \"{}\"",
                    python_expr(rng).replace('"', "'")
                ));
            }
            lines.push("          resources:".to_string());
            lines.push(format!(
                "            limits: {{ cpu: \"{}m\", memory: \"{}Mi\" }}",
                rng.range(100, 4000),
                rng.range(64, 8192)
            ));
        }
        if rng.chance(40) {
            lines.push("      script: |".to_string());
            for _ in 0..rng.between(2, 8) {
                lines.push(format!(
                    "        {} --{}={} {}",
                    ident(rng),
                    ident(rng).replace('_', "-"),
                    rng.range(0, 999),
                    ident(rng)
                ));
            }
        }
    }
    lines
}

// ---------------------------------------------------------------- JSON

fn json_value(rng: &mut Rng, depth: usize) -> String {
    match rng.range(0, [10, 9, 7][depth.min(2)]) {
        0 => rng.range(0, 10_000_000).to_string(),
        1 => float(rng),
        2 => format!("\"{}\"", sentence(rng, 1, 10).replace('"', "'")),
        3 => format!("\"{}\"", uuid(rng)),
        4 => format!("\"{}\"", timestamp(rng)),
        5 => rng.pick(&["true", "false", "null"]).to_string(),
        6 => format!("\"{}@{}.com\"", ident(rng), ident(rng)),
        7 => format!(
            "\"https://api.example.com/v2/{}/{}?page={}\"",
            ident(rng),
            rng.range(1, 99999),
            rng.range(1, 50)
        ),
        8 => {
            let items: Vec<String> = (0..rng.between(0, 12))
                .map(|_| json_value(rng, depth + 1))
                .collect();
            format!("[{}]", items.join(","))
        }
        _ => json_object(rng, depth + 1),
    }
}

fn json_object(rng: &mut Rng, depth: usize) -> String {
    let fields: Vec<String> = (0..rng.between(2, 9))
        .map(|_| {
            let key = if rng.chance(50) {
                ident(rng)
            } else {
                camel(rng)
            };
            format!("\"{}\":{}", key, json_value(rng, depth))
        })
        .collect();
    format!("{{{}}}", fields.join(","))
}

fn json(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        if rng.chance(3) {
            let records: Vec<String> = (0..rng.between(5, 25))
                .map(|_| json_object(rng, 1))
                .collect();
            lines.push(format!("[{}]", records.join(",")));
        } else {
            lines.push(json_object(rng, 0));
        }
    }
    lines
}

// ---------------------------------------------------------------- base64

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn encode_base64(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for index in 0..4 {
            if index <= chunk.len() {
                out.push(BASE64[((n >> (18 - 6 * index)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn payload(rng: &mut Rng, min_length: usize, max_length: usize) -> Vec<u8> {
    let length = rng.between(min_length, max_length);
    match rng.range(0, 9) {
        // Mostly random bytes (compressed or encrypted data).
        0..=5 => (0..length).map(|_| rng.next_u64() as u8).collect(),
        // Text.
        6 | 7 => {
            let mut text = String::new();
            while text.len() < length {
                text.push_str(&sentence(rng, 4, 20));
                text.push(' ');
            }
            text.into_bytes()
        }
        // Sparse binary: mostly zeros.
        _ => (0..length)
            .map(|_| {
                if rng.chance(80) {
                    0
                } else {
                    rng.next_u64() as u8
                }
            })
            .collect(),
    }
}

fn base64(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        match rng.range(0, 4) {
            0 => {
                let encoded = encode_base64(&payload(rng, 200, 4000));
                let width = *rng.pick(&[&76usize, &64, &76]);
                let pem = width == 64 && rng.chance(50);
                if pem {
                    lines.push("-----BEGIN CERTIFICATE-----".to_string());
                }
                for chunk in encoded.as_bytes().chunks(width) {
                    lines.push(String::from_utf8_lossy(chunk).into_owned());
                }
                if pem {
                    lines.push("-----END CERTIFICATE-----".to_string());
                }
            }
            1 => lines.push(encode_base64(&payload(rng, 100, 6000))),
            2 => lines.push(format!(
                "data:image/png;base64,{}",
                encode_base64(&payload(rng, 50, 2000))
            )),
            _ => {
                for _ in 0..rng.between(2, 10) {
                    lines.push(encode_base64(&payload(rng, 8, 60)));
                }
            }
        }
    }
    lines
}

// ---------------------------------------------------------------- CSV

fn csv(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        let columns = *rng.pick(&[&3usize, &5, &8, &12, &20, &40, &120]);
        let header: Vec<String> = (0..columns)
            .map(|index| format!("{}_{index}", rng.pick_zipf(CODE_WORDS)))
            .collect();
        lines.push(header.join(","));
        let kinds: Vec<u64> = (0..columns).map(|_| rng.range(0, 5)).collect();
        for _ in 0..rng.between(5, 60) {
            let row: Vec<String> = kinds
                .iter()
                .map(|kind| match kind {
                    0 => rng.range(0, 1_000_000_000).to_string(),
                    1 => format!("{:.4}", rng.unit() * 200.0 - 100.0),
                    2 => format!("{:.2}", rng.unit() * 10_000.0),
                    3 => format!("{:e}", rng.unit() * 1e-4),
                    4 => format!(
                        "{}-{:02}-{:02}",
                        rng.range(2000, 2026),
                        rng.range(1, 12),
                        rng.range(1, 28)
                    ),
                    _ => rng.range(0, 99).to_string(),
                })
                .collect();
            lines.push(row.join(","));
        }
    }
    lines
}

// ---------------------------------------------------------------- Chinese and Japanese

fn chinese_sentence(rng: &mut Rng) -> String {
    let mut out = String::new();
    for _ in 0..rng.between(6, 30) {
        if rng.chance(4) {
            out.push_str(rng.pick(&[
                "API",
                "JSON",
                "Rust",
                "GPU",
                "WebAssembly",
                "2024年",
                "3.5",
                "100%",
                "AI",
            ]));
        } else {
            out.push_str(rng.pick_zipf(CHINESE));
        }
        if rng.chance(12) {
            out.push_str(rng.pick(CHINESE_PUNCT));
        }
    }
    out.push_str(rng.pick(&["。", "。", "。", "！", "？"]));
    out
}

fn chinese(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        match rng.range(0, 5) {
            0 => lines.push(format!(
                "第{}章 {}",
                rng.range(1, 30),
                rng.pick_zipf(CHINESE)
            )),
            1 => {
                for index in 1..=rng.between(2, 6) {
                    lines.push(format!("{index}. {}", chinese_sentence(rng)));
                }
            }
            _ => {
                let text: String = (0..rng.between(1, 12))
                    .map(|_| chinese_sentence(rng))
                    .collect();
                if rng.chance(30) {
                    // Hard-wrapped at 40 characters.
                    let chars: Vec<char> = text.chars().collect();
                    for chunk in chars.chunks(40) {
                        lines.push(chunk.iter().collect());
                    }
                } else {
                    lines.push(text);
                }
            }
        }
        lines.push(String::new());
    }
    lines
}

fn japanese_sentence(rng: &mut Rng) -> String {
    let mut out = String::new();
    for _ in 0..rng.between(3, 14) {
        if rng.chance(4) {
            out.push_str(rng.pick(&["API", "JSON", "Rust", "GPU", "2024年", "3.5", "AI"]));
        } else {
            out.push_str(rng.pick_zipf(JAPANESE_WORDS));
        }
        out.push_str(rng.pick_zipf(JAPANESE_GRAMMAR));
        if rng.chance(15) {
            out.push('、');
        }
    }
    out.push_str(rng.pick(&["。", "。", "。", "！", "？"]));
    out
}

fn japanese(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        match rng.range(0, 5) {
            0 => lines.push(format!(
                "第{}章　{}",
                rng.range(1, 30),
                rng.pick_zipf(JAPANESE_WORDS)
            )),
            1 => {
                for _ in 0..rng.between(2, 6) {
                    lines.push(format!("・{}", japanese_sentence(rng)));
                }
            }
            _ => {
                let text: String = (0..rng.between(1, 10))
                    .map(|_| japanese_sentence(rng))
                    .collect();
                lines.push(text);
            }
        }
        lines.push(String::new());
    }
    lines
}

// ---------------------------------------------------------------- logs

fn logs(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        let (level, colour) = *rng.pick(&[
            &("INFO", "\x1b[32m"),
            &("INFO", "\x1b[32m"),
            &("INFO", "\x1b[32m"),
            &("DEBUG", "\x1b[34m"),
            &("WARN", "\x1b[33m"),
            &("ERROR", "\x1b[1;31m"),
            &("TRACE", "\x1b[2m"),
        ]);
        let module = format!("{}::{}", ident(rng), ident(rng));
        let message = match rng.range(0, 6) {
            0 => format!(
                "request completed method={} path=/api/v1/{}/{} status={} latency_ms={:.1} request_id={}",
                rng.pick(&["GET", "POST", "PUT", "DELETE"]),
                ident(rng),
                rng.range(1, 99999),
                rng.pick(&["200", "201", "204", "404", "500", "503"]),
                rng.unit() * 900.0,
                hex(rng, 16)
            ),
            1 => sentence(rng, 4, 16),
            2 => format!(
                "query executed: SELECT {} FROM {} WHERE {} = {} AND {} > '{}' ORDER BY {} LIMIT {} ({} rows in {}ms)",
                (0..rng.between(1, 20)).map(|_| ident(rng)).collect::<Vec<_>>().join(", "),
                ident(rng),
                ident(rng),
                rng.range(0, 1_000_000),
                ident(rng),
                timestamp(rng),
                ident(rng),
                rng.range(1, 1000),
                rng.range(0, 5000),
                rng.range(0, 900)
            ),
            3 => format!("connection from {}.{}.{}.{}:{} closed: {}", rng.range(1, 255), rng.range(0, 255), rng.range(0, 255), rng.range(1, 254), rng.range(1024, 65535), sentence(rng, 2, 8)),
            4 => format!("payload={}", json_object(rng, 1)),
            _ => format!("retrying in {}s (attempt {}/{}): {}", rng.range(1, 60), rng.range(1, 5), 5, sentence(rng, 3, 10)),
        };
        lines.push(format!(
            "\x1b[2m{}\x1b[0m {colour}{level:>5}\x1b[0m \x1b[2m{module}\x1b[0m: {message}",
            timestamp(rng)
        ));
        if level == "ERROR" && rng.chance(60) {
            for _ in 0..rng.between(2, 8) {
                lines.push(format!(
                    "    at {}::{}::{} (src/{}.rs:{}:{})",
                    ident(rng),
                    camel(rng),
                    ident(rng),
                    ident(rng),
                    rng.range(1, 3000),
                    rng.range(1, 120)
                ));
            }
        }
    }
    lines
}

// ---------------------------------------------------------------- other scripts and symbols

fn unicode_sentence(rng: &mut Rng, words: &[&str]) -> String {
    let mut out = String::new();
    for position in 0..rng.between(4, 22) {
        if position > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick_zipf(words));
        if rng.chance(8) {
            out.push(',');
        }
        if rng.chance(5) {
            out.push(' ');
            out.push_str(rng.pick(EMOJI));
        }
    }
    out.push('.');
    out
}

fn unicode(rng: &mut Rng, target: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while bytes(&lines) < target {
        match rng.range(0, 8) {
            0 => lines.push(unicode_sentence(rng, RUSSIAN)),
            6 | 7 => {
                let words = *rng.pick(&[&HINDI, &THAI, &ARABIC, &HEBREW, &KOREAN, &VIETNAMESE]);
                let mut line = unicode_sentence(rng, words);
                if std::ptr::eq(words, THAI) {
                    // Thai separates phrases, not words, with spaces.
                    line = line.replacen(' ', "", line.matches(' ').count() / 2);
                }
                lines.push(line);
            }
            1 => lines.push(unicode_sentence(rng, EUROPEAN)),
            2 => lines.push(unicode_sentence(rng, GREEK)),
            3 => {
                // A directory tree as `tree` prints it.
                lines.push(".".to_string());
                let mut depth = 0usize;
                for index in 0..rng.between(3, 20) {
                    let mut line = "│   ".repeat(depth);
                    line.push_str(if rng.chance(25) {
                        "└── "
                    } else {
                        "├── "
                    });
                    line.push_str(&ident(rng));
                    line.push_str(rng.pick(&[".rs", ".py", ".md", "/", ".json", ""]));
                    lines.push(line);
                    if index % 3 == 0 && depth < 4 {
                        depth += 1;
                    } else if depth > 0 && rng.chance(30) {
                        depth -= 1;
                    }
                }
            }
            4 => lines.push(format!(
                "{} {} {} — {} → {}{} ({}°C, ±{}%, {}× in {}µs) {}",
                rng.pick(EMOJI),
                sentence(rng, 3, 12),
                rng.pick(EMOJI),
                rng.pick_zipf(EUROPEAN),
                rng.pick(&["€", "£", "¥", "₹"]),
                rng.range(1, 999),
                rng.range(0, 40),
                rng.range(1, 9),
                rng.range(2, 64),
                rng.range(1, 999),
                rng.pick(EMOJI)
            )),
            _ => {
                let mixed: Vec<String> = (0..rng.between(1, 4))
                    .map(|_| {
                        let words = *rng.pick(&[&RUSSIAN, &EUROPEAN, &GREEK]);
                        unicode_sentence(rng, words)
                    })
                    .collect();
                lines.push(mixed.join(" "));
            }
        }
        if rng.chance(30) {
            lines.push(String::new());
        }
    }
    lines
}
