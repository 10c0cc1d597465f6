//! Issue 28 through the real component: an image read is an overview within the image budget whose hint names
//! the full-resolution regions, a region at full resolution is the source's pixels exactly, a 20,000 x 20,000 PNG
//! stays under 64 MiB of linear memory, a decompression bomb is refused from its header, and the MCP server
//! returns an image content block.

use std::io::Write;

use base64::Engine as _;
use read_window_host::{Config, PixelRegion, ReadOutcome, ReadRequest};
use serde_json::{json, Value};

use crate::common::{error_kind, read, stat, Sandbox};

const MIB: u64 = 1024 * 1024;

/// A PNG of `width` x `height` 8-bit RGB pixels, `pixel(x, y)` each.
fn rgb_png(width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    let mut data = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        for x in 0..width {
            data.extend_from_slice(&pixel(x, y));
        }
    }
    writer.write_image_data(&data).unwrap();
    writer.finish().unwrap();
    bytes
}

/// A screenshot-like pixel: a light page, dark one-pixel strokes of "text" in bands, a coloured panel.
fn screenshot_pixel(x: u32, y: u32) -> [u8; 3] {
    let in_text_band = y % 40 < 9 && x % 600 < 520;
    if in_text_band && (x * 7 + y * 3) % 5 < 2 {
        [20, 20, 30]
    } else if (2000..2600).contains(&x) && (1000..1400).contains(&y) {
        [40, 110, 200]
    } else {
        [246, 246, 244]
    }
}

/// Decodes a PNG answer's `data` into its size and RGB(A) bytes.
fn decoded(answer: &Value) -> (u32, u32, png::ColorType, Vec<u8>) {
    let data = base64::engine::general_purpose::STANDARD
        .decode(answer["data"].as_str().expect("an image answer has data"))
        .unwrap();
    let mut decoder = png::Decoder::new(std::io::Cursor::new(data));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    pixels.truncate(frame.buffer_size());
    (frame.width, frame.height, frame.color_type, pixels)
}

#[test]
fn a_large_screenshot_is_an_overview_whose_hint_names_the_regions_and_a_region_is_the_source_pixels(
) {
    let sandbox = Sandbox::new();
    let path = sandbox.write("shot.png", rgb_png(6000, 4000, screenshot_pixel));
    let mut session = sandbox.default_session();

    let overview = read(&mut session, &path, json!({}));
    assert_eq!(overview["status"], "ok", "{overview}");
    let image = &overview["image"];
    assert_eq!(image["mime_type"], "image/png");
    assert_eq!(
        (image["width"].clone(), image["height"].clone()),
        (json!(1313), json!(875))
    );
    assert_eq!(image["original_width"], 6000);
    assert_eq!(image["original_height"], 4000);
    assert_eq!(
        image["region"],
        json!({"x": 0, "y": 0, "width": 6000, "height": 4000})
    );
    assert_eq!(image["frames"], 1);
    let hint = overview["hint"].as_str().unwrap();
    assert!(
        hint.contains("shown at 0.22 scale (1,313 x 875); 5 x 5 regions of 1,200 x 800 show it at full resolution, the first is region=0,0,1200,800"),
        "{hint}"
    );
    assert_eq!(overview["text"], overview["hint"]);
    let (width, height, _, _) = decoded(&overview);
    assert_eq!((width, height), (1313, 875));

    // The region the hint names next to the first, at full resolution: every pixel is the source's.
    let region = read(
        &mut session,
        &path,
        json!({"region": {"x": 1200, "y": 800, "width": 1200, "height": 800}}),
    );
    assert_eq!(region["image"]["scale"], 1.0, "{region}");
    assert_eq!(
        region["image"]["region"],
        json!({"x": 1200, "y": 800, "width": 1200, "height": 800})
    );
    let (width, height, color, pixels) = decoded(&region);
    assert_eq!((width, height, color), (1200, 800, png::ColorType::Rgb));
    for y in 0..800 {
        for x in 0..1200 {
            let at = ((y * 1200 + x) * 3) as usize;
            assert_eq!(
                pixels[at..at + 3],
                screenshot_pixel(1200 + x, 800 + y),
                "pixel {x},{y} of the region"
            );
        }
    }

    // The same region again is a stub that names it; the tripwire counts regions.
    let again = read(
        &mut session,
        &path,
        json!({"region": {"x": 1200, "y": 800, "width": 1200, "height": 800}}),
    );
    assert_eq!(again["status"], "unchanged", "{again}");
    assert_eq!(
        again["region"],
        json!({"x": 1200, "y": 800, "width": 1200, "height": 800})
    );
    assert!(again["text"]
        .as_str()
        .unwrap()
        .starts_with("[read-window: unchanged] Region 1200,800,1200,800 of "));
}

#[test]
fn a_twenty_thousand_pixel_square_png_reads_in_under_64_mib_of_linear_memory() {
    // 20,000 x 20,000 8-bit grey, compressible (bands), written row by row.
    let sandbox = Sandbox::new();
    let file = std::fs::File::create(sandbox.host("huge.png")).unwrap();
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), 20_000, 20_000);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().unwrap();
    let mut stream = writer.stream_writer().unwrap();
    let dark = vec![30u8; 20_000];
    let light = vec![220u8; 20_000];
    for y in 0..20_000u32 {
        stream
            .write_all(if y % 1000 < 500 { &dark } else { &light })
            .unwrap();
    }
    stream.finish().unwrap();
    writer.finish().unwrap();
    let path = sandbox.guest("huge.png");
    let mut session = sandbox.default_session();
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["status"], "ok", "{answer}");
    // 1,150,000 pixels of a square: 1,072 x 1,072 (0.0536 scale).
    assert_eq!(answer["image"]["width"], 1072);
    assert_eq!(answer["image"]["height"], 1072);
    let (width, height, _, pixels) = decoded(&answer);
    let channels = pixels.len() / (width * height) as usize;
    // Row 0 is in a dark band, row 30 (original rows 559-578) in a light one.
    assert_eq!(pixels[0], 30);
    assert_eq!(pixels[30 * 1072 * channels], 220);
    let peak = stat(&mut session, "peak_memory_bytes");
    assert!(peak < 64 * MIB, "peak linear memory {peak} bytes");
}

#[test]
fn a_decompression_bomb_is_too_large_from_its_header_and_a_truncated_png_is_malformed() {
    let sandbox = Sandbox::new();
    // A header that claims 100,000 x 100,000 pixels, then the data of a 1 x 1 image: a decoder that went past the
    // header would find it short and call it malformed, so `too_large` shows nothing was decoded.
    let mut bomb = rgb_png(1, 1, |_, _| [0, 0, 0]);
    bomb[16..24].copy_from_slice(&[0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0]);
    let crc = crc32(&bomb[12..29]);
    bomb[29..33].copy_from_slice(&crc.to_be_bytes());
    let bomb_path = sandbox.write("bomb.png", &bomb);
    let whole = rgb_png(64, 64, |x, y| [x as u8, y as u8, 7]);
    let truncated = sandbox.write("cut.png", &whole[..whole.len() / 2]);
    let mut session = sandbox.default_session();

    let refused = read(&mut session, &bomb_path, json!({}));
    assert_eq!(error_kind(&refused), "too_large", "{refused}");
    assert!(
        refused["text"]
            .as_str()
            .unwrap()
            .contains("100,000 x 100,000"),
        "{refused}"
    );
    let cut = read(&mut session, &truncated, json!({}));
    assert_eq!(error_kind(&cut), "malformed_image", "{cut}");
}

/// CRC-32 (IEEE), for a PNG chunk edited by hand.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn the_typed_interface_returns_the_picture_and_images_off_refuses_it_as_binary() {
    let sandbox = Sandbox::new();
    let small = rgb_png(3, 2, |x, y| [x as u8 * 100, y as u8 * 100, 50]);
    let path = sandbox.write("tiny.jpg", &small);
    let mut session = sandbox.typed_session(Config::default());
    let outcome = session
        .read(&ReadRequest::new(&path).region(0, 0, 3, 2))
        .unwrap()
        .unwrap();
    let ReadOutcome::Image(image) = outcome else {
        panic!("an image outcome, not {outcome:?}");
    };
    // A `.jpg` that holds a PNG is a PNG; the file fits, so its own bytes are the picture.
    assert_eq!(image.mime_type, "image/png");
    assert_eq!(image.data, small);
    assert_eq!(
        image.region,
        PixelRegion {
            x: 0,
            y: 0,
            width: 3,
            height: 2
        }
    );
    assert_eq!(image.text, image.hint);

    let mut off = sandbox.session(Config {
        images: Some(false),
        ..Config::default()
    });
    let refused = read(&mut off, &path, json!({}));
    assert_eq!(error_kind(&refused), "binary", "{refused}");
    let region = read(&mut off, &path, json!({"region": "0,0,3,2"}));
    assert_eq!(
        region["error"]["message"],
        "`region` is for images, and this session reads no images (config `images` is false): read "
            .to_owned()
            + &path + " without it (by lines: offset and limit)."
    );
}

/// `read-window --root ROOT read ARGS...` run in the sandbox.
fn cli_read(sandbox: &Sandbox, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_read-window"))
        .args(["--root", sandbox.root.to_str().unwrap(), "read"])
        .args(args)
        .current_dir(&sandbox.root)
        .output()
        .unwrap()
}

#[test]
fn the_cli_writes_the_picture_with_out_and_takes_a_region() {
    let sandbox = Sandbox::new();
    sandbox.write("panel.png", rgb_png(40, 30, |x, y| [x as u8, y as u8, 9]));
    let output = cli_read(
        &sandbox,
        &["panel.png", "--region", "10,5,8,4", "--out", "part.png"],
    );
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!(
            "{}: region 10,5,8,4 of the 40 x 30 PNG image, at full resolution (8 x 4).\n",
            sandbox.guest("panel.png")
        )
    );
    let written = std::fs::read(sandbox.host("part.png")).unwrap();
    let answer = json!({"data": base64::engine::general_purpose::STANDARD.encode(written)});
    let (width, height, _, pixels) = decoded(&answer);
    assert_eq!((width, height), (8, 4));
    let channels = pixels.len() / 32;
    for y in 0..4u32 {
        for x in 0..8u32 {
            let at = ((y * 8 + x) as usize) * channels;
            assert_eq!(
                pixels[at..at + 3],
                [10 + x as u8, 5 + y as u8, 9],
                "pixel {x},{y}"
            );
        }
    }

    // --out with a file that is no image writes nothing and says so.
    sandbox.write("notes.txt", "text\n");
    let text = cli_read(&sandbox, &["notes.txt", "--out", "never.png"]);
    assert!(text.status.success());
    assert!(!sandbox.host("never.png").exists());
    assert_eq!(
        String::from_utf8(text.stderr).unwrap(),
        "read-window: --out never.png: nothing written, the answer is not an image\n"
    );
}

#[test]
fn the_images_of_a_read_many_share_one_pictures_base64_and_the_files_after_are_left_out() {
    let sandbox = Sandbox::new();
    // Noise does not compress: each 1,000 x 1,000 PNG is about 3 MB, 4 MB of base64, and fits alone as it is.
    let noise = |seed: u32| {
        rgb_png(1000, 1000, move |x, y| {
            let n = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663) ^ seed)
                .wrapping_mul(2_654_435_761);
            [(n >> 8) as u8, (n >> 16) as u8, (n >> 24) as u8]
        })
    };
    let paths: Vec<String> = (1..=4)
        .map(|n| sandbox.write(&format!("shots/{n}.png"), noise(n)))
        .collect();
    let notes = sandbox.write("shots/notes.txt", "one\n");
    let mut all = paths.clone();
    all.push(notes.clone());
    let mut session = sandbox.default_session();
    let answer = crate::common::ask(&mut session, json!({"op": "read_many", "paths": all}));
    let files = answer["files"].as_array().unwrap();
    let base64: Vec<usize> = files
        .iter()
        .map(|file| file["data"].as_str().map_or(0, str::len))
        .collect();
    // The first is its own bytes; the second is encoded again to fit what the first left (a JPEG: noise has too
    // many colours for a PNG that small); then less than a sixteenth is left.
    assert_eq!(files.len(), 2, "{base64:?}");
    assert!(base64.iter().sum::<usize>() as u64 <= 5 * MIB, "{base64:?}");
    assert_eq!(files[0]["image"]["mime_type"], "image/png");
    assert_eq!(
        base64[0],
        4 * std::fs::metadata(sandbox.host("shots/1.png"))
            .unwrap()
            .len()
            .div_ceil(3) as usize
    );
    assert_eq!(files[1]["image"]["mime_type"], "image/jpeg");
    let left_out: Vec<&str> = answer["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        left_out,
        [paths[2].as_str(), paths[3].as_str(), notes.as_str()]
    );
    let hint = answer["hint"].as_str().unwrap();
    assert!(
        hint.contains(&format!(
            "Left out once the call's images had used their shared 5 MiB of base64, not read at all: the last 3 \
             files of the call ({}, {}, {notes}).",
            paths[2], paths[3]
        )),
        "{hint}"
    );
    // A single read of a file left out gets the whole image budget again.
    let alone = read(&mut session, &paths[2], json!({}));
    assert_eq!(alone["image"]["scale"], 1.0, "{}", alone["hint"]);
}

#[test]
fn in_token_mode_an_image_among_several_files_is_fitted_to_the_tokens_left() {
    use read_window_host::{Budget, TokenBudget};
    let sandbox = Sandbox::new();
    let shot = sandbox.write(
        "shot.png",
        rgb_png(1000, 1000, |x, y| screenshot_pixel(x * 3, y * 3)),
    );
    let notes = sandbox.write("notes.txt", "one\ntwo\n");
    let config = Config {
        budget: Some(Budget::Tokens(TokenBudget {
            cap: Some(1_000),
            headroom: None,
        })),
        ..Config::default()
    };
    let mut session = sandbox.session(config);
    let answer = crate::common::ask(
        &mut session,
        json!({"op": "read_many", "paths": [notes, shot]}),
    );
    let budget = &answer["budget"];
    let image = &answer["files"][1]["image"];
    let pixels = image["width"].as_u64().unwrap() * image["height"].as_u64().unwrap();
    // 900 tokens aimed at; the picture is scaled so that its pixels, at 750 a token, fit what the text left.
    assert_eq!(budget["limit"], 900, "{budget}");
    assert!(image["scale"].as_f64().unwrap() < 1.0, "{image}");
    assert!(budget["used"].as_u64().unwrap() <= 900, "{budget}");
    assert!(
        pixels.div_ceil(750) <= budget["used"].as_u64().unwrap(),
        "{pixels} pixels, {budget}"
    );
}
