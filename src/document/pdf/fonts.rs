//! Font checks: every font a page uses is of a shape pdf-extract reads (known encodings, `DescendantFonts` for
//! Type0, `Widths` and `W` arrays of whole entries).

use lopdf::{Dictionary, Document, Object};

use super::{deref, is_number, lossy};

/// Checks a font dictionary as pdf-extract reads it. Errors: what is wrong, as the end of a sentence that starts
/// with the font's name.
pub(super) fn check_font(doc: &Document, font: &Dictionary) -> Result<(), String> {
    let subtype = name_of(doc, font, b"Subtype").ok_or("has no Subtype name")?;
    if subtype != b"Type3" && name_of(doc, font, b"BaseFont").is_none() {
        return Err("has no BaseFont name".to_string());
    }
    if let Ok(to_unicode) = font.get(b"ToUnicode") {
        match deref(doc, to_unicode)? {
            Object::Stream(_) => {}
            Object::Name(n) if n.as_slice() == b"Identity-H" => {}
            _ => return Err("has a ToUnicode pdf-extract cannot read".to_string()),
        }
    }
    if subtype == b"Type0" {
        return check_composite_font(doc, font);
    }
    check_simple_encoding(doc, font)?;
    check_simple_widths(doc, font)?;
    if let Ok(descriptor) = font.get(b"FontDescriptor") {
        if let Ok(descriptor) = deref(doc, descriptor)?.as_dict() {
            if let Ok(file3) = descriptor.get(b"FontFile3") {
                if let Object::Stream(stream) = deref(doc, file3)? {
                    if !matches!(stream.dict.get(b"Subtype"), Ok(Object::Name(_))) {
                        return Err("has a FontFile3 without a Subtype name".to_string());
                    }
                }
            }
        }
    }
    Ok(())
}

/// A `Type0` font: a descendant font dictionary with a `FontDescriptor`, an Identity or embedded CMap encoding,
/// and widths pdf-extract can read.
fn check_composite_font(doc: &Document, font: &Dictionary) -> Result<(), String> {
    let descendants = font
        .get(b"DescendantFonts")
        .ok()
        .map(|d| deref(doc, d))
        .transpose()?
        .and_then(|d| d.as_array().ok())
        .ok_or("has no DescendantFonts")?;
    let cid = descendants
        .first()
        .map(|d| deref(doc, d))
        .transpose()?
        .and_then(|d| d.as_dict().ok())
        .ok_or("has no descendant font dictionary")?;
    match font.get(b"Encoding").map(|e| deref(doc, e)) {
        Ok(Ok(Object::Name(n))) if matches!(n.as_slice(), b"Identity-H" | b"Identity-V") => {}
        Ok(Ok(Object::Stream(_))) => {}
        Ok(Err(e)) => return Err(e),
        _ => return Err("has an encoding pdf-extract cannot read".to_string()),
    }
    let descriptor = cid
        .get(b"FontDescriptor")
        .ok()
        .map(|d| deref(doc, d))
        .transpose()?
        .ok_or("has no FontDescriptor")?;
    if descriptor.as_dict().is_err() {
        return Err("has a FontDescriptor that is not a dictionary".to_string());
    }
    if let Ok(w) = cid.get(b"W") {
        check_cid_widths(doc, deref(doc, w)?)?;
    }
    Ok(())
}

/// A simple font's `Encoding`: absent, a name pdf-extract knows, or a dictionary of a known base encoding and
/// differences inside codes 0-255.
fn check_simple_encoding(doc: &Document, font: &Dictionary) -> Result<(), String> {
    let encoding = match font.get(b"Encoding").map(|e| deref(doc, e)) {
        Err(_) => return Ok(()),
        Ok(Err(e)) => return Err(e),
        Ok(Ok(Object::Name(n))) => return check_encoding_name(n),
        Ok(Ok(Object::Dictionary(encoding))) => encoding,
        Ok(Ok(_)) => return Err("has an encoding pdf-extract cannot read".to_string()),
    };
    if let Ok(base) = encoding.get(b"BaseEncoding") {
        if let Object::Name(n) = deref(doc, base)? {
            check_encoding_name(n)?;
        }
    }
    let Ok(differences) = encoding.get(b"Differences") else {
        return Ok(());
    };
    let Object::Array(items) = deref(doc, differences)? else {
        return Ok(());
    };
    let mut code: i64 = 0;
    for item in items {
        match deref(doc, item)? {
            Object::Integer(i) => code = *i,
            Object::Name(_) => {
                if !(0..256).contains(&code) {
                    return Err("has an encoding difference outside codes 0-255".to_string());
                }
                code += 1;
            }
            _ => {
                return Err(
                    "has an encoding difference that is neither a code nor a name".to_string(),
                )
            }
        }
    }
    Ok(())
}

/// A simple font's `Widths`: absent, or an array of numbers with a `FirstChar`.
fn check_simple_widths(doc: &Document, font: &Dictionary) -> Result<(), String> {
    let Ok(widths) = font.get(b"Widths") else {
        return Ok(());
    };
    let items = deref(doc, widths)?
        .as_array()
        .map_err(|_| "has Widths that are not an array".to_string())?;
    if !items
        .iter()
        .all(|w| deref(doc, w).map(is_number).unwrap_or(false))
    {
        return Err("has Widths that are not all numbers".to_string());
    }
    match font.get(b"FirstChar").map(|f| deref(doc, f)) {
        Ok(Ok(Object::Integer(_))) => Ok(()),
        _ => Err("has Widths without a FirstChar".to_string()),
    }
}

/// pdf-extract knows three named simple-font encodings and panics on any other.
fn check_encoding_name(name: &[u8]) -> Result<(), String> {
    match name {
        b"WinAnsiEncoding" | b"MacRomanEncoding" | b"MacExpertEncoding" => Ok(()),
        other => Err(format!(
            "has the encoding `{}`, which pdf-extract cannot read",
            lossy(other)
        )),
    }
}

/// A CIDFont's `W` array: entries `c [w1 w2 ...]` or `c_first c_last w`, read by index without bounds checks.
fn check_cid_widths(doc: &Document, w: &Object) -> Result<(), String> {
    let items = w
        .as_array()
        .map_err(|_| "has a W that is not an array".to_string())?;
    let mut i = 0;
    while i < items.len() {
        let first = items.get(i).map(|o| deref(doc, o)).transpose()?;
        let second = items.get(i + 1).map(|o| deref(doc, o)).transpose()?;
        match (first, second) {
            (Some(Object::Integer(_)), Some(Object::Array(_))) => i += 2,
            (Some(Object::Integer(_)), Some(Object::Integer(_))) if items.get(i + 2).is_some() => {
                i += 3
            }
            _ => return Err("has a W array pdf-extract cannot read".to_string()),
        }
    }
    Ok(())
}

fn name_of<'d>(doc: &'d Document, dict: &'d Dictionary, key: &[u8]) -> Option<&'d [u8]> {
    match dict.get(key).ok().map(|o| deref(doc, o)) {
        Some(Ok(Object::Name(n))) => Some(n.as_slice()),
        _ => None,
    }
}
