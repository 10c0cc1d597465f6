//! Fixtures of the text formats (notebook, Word, OpenDocument text and presentation, PowerPoint, EPUB) and of bad
//! containers (a zip bomb, a corrupt docx), built in code for the native tests here and the component tests of the
//! host. Not part of the reading API: hidden from the docs.

use super::fixtures::zip_parts;

const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;

/// A `.docx`: `# Report` (Heading1), a paragraph with footnote 1, a list of two items (the second at level 1), a
/// 2x2 table (`Name | Value`, `alpha | 1`) between two paragraphs, a comment by Ann on the last paragraph.
pub fn docx() -> Vec<u8> {
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document {W}><w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Report</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Sales rose &amp; costs fell.</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p>
<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>first item</w:t></w:r></w:p>
<w:p><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>nested item</w:t></w:r></w:p>
<w:p><w:r><w:t>Before the table.</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Name</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Value</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>alpha</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>1</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:r><w:t>After the table.</w:t></w:r><w:r><w:commentReference w:id="0"/></w:r></w:p>
</w:body></w:document>"#
    );
    let footnotes = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:footnotes {W}><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:t>Audited figures.</w:t></w:r></w:p></w:footnote></w:footnotes>"#
    );
    let comments = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:comments {W}><w:comment w:id="0" w:author="Ann"><w:p><w:r><w:t>Check this.</w:t></w:r></w:p></w:comment></w:comments>"#
    );
    zip_parts(&[
        ("[Content_Types].xml", b"<?xml version=\"1.0\"?><Types/>"),
        ("word/document.xml", document.as_bytes()),
        ("word/footnotes.xml", footnotes.as_bytes()),
        ("word/comments.xml", comments.as_bytes()),
    ])
}

/// The text [`docx`] extracts to.
pub const DOCX_TEXT: &str = "# Report\nSales rose & costs fell.[^1]\n- first item\n  - nested item\nBefore the table.\nName | Value\nalpha | 1\nAfter the table.[comment 0]\n--- footnotes ---\n[^1] Audited figures.\n--- comments ---\n[comment 0 by Ann] Check this.\n";

const ODF_NS: &str = r#"xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/""#;

/// An `.odt`: a heading, a paragraph with a footnote, a list item, a 2x2 table.
pub fn odt() -> Vec<u8> {
    let content = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content {ODF_NS}><office:body><office:text>
<text:h text:outline-level="2">Plan</text:h>
<text:p>Ship it<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>By May.</text:p></text:note-body></text:note> soon.</text:p>
<text:list><text:list-item><text:p>one<text:s text:c="2"/>step</text:p></text:list-item></text:list>
<table:table><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell><table:table-cell><text:p>b</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><text:p>c</text:p></table:table-cell><table:table-cell><text:p>d</text:p></table:table-cell></table:table-row></table:table>
</office:text></office:body></office:document-content>"#
    );
    zip_parts(&[
        ("mimetype", b"application/vnd.oasis.opendocument.text"),
        ("content.xml", content.as_bytes()),
    ])
}

/// The text [`odt`] extracts to.
pub const ODT_TEXT: &str =
    "## Plan\nShip it[^1] soon.\n- one  step\na | b\nc | d\n--- footnotes ---\n[^1] By May.\n";

/// A `.pptx` of two slides; the first has a title, a body and speaker notes, the second a body only.
pub fn pptx() -> Vec<u8> {
    let p = r#"xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
    let presentation = format!(
        r#"<?xml version="1.0"?><p:presentation {p}><p:sldIdLst><p:sldId id="256" r:id="rId2"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst></p:presentation>"#
    );
    let rels = r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide2.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>"#;
    let slide = |shapes: &str| {
        format!(
            r#"<?xml version="1.0"?><p:sld {p}><p:cSld><p:spTree>{shapes}</p:spTree></p:cSld></p:sld>"#
        )
    };
    let shape = |ph: &str, paragraphs: &[&str]| {
        let body: String = paragraphs
            .iter()
            .map(|t| format!("<a:p><a:r><a:t>{t}</a:t></a:r></a:p>"))
            .collect();
        format!(
            r#"<p:sp><p:nvSpPr><p:cNvPr id="2" name="x"/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr></p:nvSpPr><p:txBody>{body}</p:txBody></p:sp>"#
        )
    };
    let slide1 = slide(&format!(
        "{}{}",
        shape(r#"<p:ph type="title"/>"#, &["Quarterly results"]),
        shape(r#"<p:ph idx="1"/>"#, &["Revenue up 5%", "Costs flat"])
    ));
    let slide2 = slide(&shape("", &["Questions?"]));
    let slide1_rels = r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide1.xml"/></Relationships>"#;
    let notes = format!(
        r#"<?xml version="1.0"?><p:notes {p}><p:cSld><p:spTree>{}{}</p:spTree></p:cSld></p:notes>"#,
        shape(r#"<p:ph type="sldImg"/>"#, &[]),
        shape(
            r#"<p:ph type="body" idx="1"/>"#,
            &["Mention the new client."]
        )
    );
    zip_parts(&[
        ("[Content_Types].xml", b"<?xml version=\"1.0\"?><Types/>"),
        ("ppt/presentation.xml", presentation.as_bytes()),
        ("ppt/_rels/presentation.xml.rels", rels.as_bytes()),
        ("ppt/slides/slide1.xml", slide1.as_bytes()),
        ("ppt/slides/slide2.xml", slide2.as_bytes()),
        ("ppt/slides/_rels/slide1.xml.rels", slide1_rels.as_bytes()),
        ("ppt/notesSlides/notesSlide1.xml", notes.as_bytes()),
    ])
}

/// The text [`pptx`] extracts to.
pub const PPTX_TEXT: &str = "--- slide 1 of 2: Quarterly results ---\nRevenue up 5%\nCosts flat\n[notes]\nMention the new client.\n--- slide 2 of 2 ---\nQuestions?\n";

/// An `.odp` of two slides, the first with a title and notes.
pub fn odp() -> Vec<u8> {
    let content = format!(
        r#"<?xml version="1.0"?><office:document-content {ODF_NS}><office:body><office:presentation>
<draw:page draw:name="p1"><draw:frame presentation:class="title"><draw:text-box><text:p>Roadmap</text:p></draw:text-box></draw:frame><draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>Beta in June</text:p></text:list-item></text:list></draw:text-box></draw:frame><presentation:notes><draw:frame presentation:class="notes"><draw:text-box><text:p>Keep it short.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>
<draw:page draw:name="p2"><draw:frame><draw:text-box><text:p>Thanks</text:p></draw:text-box></draw:frame></draw:page>
</office:presentation></office:body></office:document-content>"#
    );
    zip_parts(&[
        (
            "mimetype",
            b"application/vnd.oasis.opendocument.presentation",
        ),
        ("content.xml", content.as_bytes()),
    ])
}

/// The text [`odp`] extracts to.
pub const ODP_TEXT: &str = "--- slide 1 of 2: Roadmap ---\nBeta in June\n[notes]\nKeep it short.\n--- slide 2 of 2 ---\nThanks\n";

/// An `.epub` of two chapters (spine order differs from manifest order).
pub fn epub() -> Vec<u8> {
    let container = r#"<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;
    let opf = r#"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest><item id="c2" href="text/two.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>"#;
    let one = r#"<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title><style>p{}</style></head><body><h1>The Start</h1><p>It was a dark&nbsp;night.</p><ul><li>rain</li><li>wind</li></ul></body></html>"#;
    let two = r#"<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Two</title></head><body><p>No heading here.<br/>Second line.</p></body></html>"#;
    zip_parts(&[
        ("mimetype", b"application/epub+zip"),
        ("META-INF/container.xml", container.as_bytes()),
        ("OEBPS/content.opf", opf.as_bytes()),
        ("OEBPS/text/one.xhtml", one.as_bytes()),
        ("OEBPS/text/two.xhtml", two.as_bytes()),
    ])
}

/// The text [`epub`] extracts to.
pub const EPUB_TEXT: &str = "--- chapter 1: The Start ---\n# The Start\nIt was a dark night.\n- rain\n- wind\n--- chapter 2: Two ---\nNo heading here.\nSecond line.\n";

/// A notebook: a markdown cell, a code cell with a stream output and a 300,000-byte PNG output, a code cell with
/// an error (ANSI-coloured traceback).
pub fn ipynb() -> Vec<u8> {
    let png = "A".repeat(400_000);
    let notebook = serde_json::json!({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n", "Load the data."]},
            {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "print('hi')\nplot()",
             "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["hi\n"]},
                {"output_type": "display_data", "metadata": {}, "data": {"image/png": png, "text/plain": ["<Figure size 640x480>"]}}
             ]},
            {"cell_type": "code", "execution_count": 2, "metadata": {}, "source": ["1/0"],
             "outputs": [
                {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
                 "traceback": ["\u{1b}[0;31mZeroDivisionError\u{1b}[0m Traceback (most recent call last)", "\u{1b}[0;31mZeroDivisionError\u{1b}[0m: division by zero"]}
             ]}
        ]
    });
    notebook.to_string().into_bytes()
}

/// The text [`ipynb`] extracts to.
pub const IPYNB_TEXT: &str = "# [cell 1] markdown\n# Analysis\nLoad the data.\n# [cell 2] code (execution 1)\nprint('hi')\nplot()\n[stdout]\nhi\n[display_data]\n<Figure size 640x480>\n[image/png output omitted: 300000 bytes]\n# [cell 3] code (execution 2)\n1/0\n[error] ZeroDivisionError: division by zero\nZeroDivisionError Traceback (most recent call last)\nZeroDivisionError: division by zero\n";

/// A zip bomb by ratio: one 2,000,000-byte entry of zeros (it deflates to about 2 KB), named `report.docx`.
pub fn zip_bomb() -> Vec<u8> {
    let zeros = vec![0u8; 2_000_000];
    zip_parts(&[
        ("[Content_Types].xml", b"<Types/>"),
        ("word/document.xml", &zeros),
    ])
}

/// A `.docx` whose `word/document.xml` is cut off mid-element.
pub fn corrupt_docx() -> Vec<u8> {
    let document = format!(r#"<?xml version="1.0"?><w:document {W}><w:body><w:p><w:r><w:t>cut"#);
    zip_parts(&[
        ("[Content_Types].xml", b"<Types/>"),
        ("word/document.xml", document.as_bytes()),
    ])
}

/// A zip that is no document (an archive of two text files).
pub fn plain_zip() -> Vec<u8> {
    zip_parts(&[("a.txt", b"alpha\n"), ("b.txt", b"beta\n")])
}
