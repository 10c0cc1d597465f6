"""Tests of the compiled-component cache (``read_window/_cache.py``): an entry is used only when it is private and
unchanged since it was written, and anything else is recompiled and replaced, never a crash.

Run: ``PYTHONPATH=hosts/python python -m unittest discover -s hosts/python/tests`` (with wasmtime installed).
"""

import os
import shutil
import stat
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from wasmtime import Engine
from wasmtime.component import Component

from read_window import HostError, ReadWindow, _cache
from read_window._host import ENGINE_SETTINGS, Session

#: The smallest component: the preamble of component-model layer 1 and nothing else. It compiles in milliseconds.
EMPTY_COMPONENT = b"\0asm\x0d\0\x01\0"
#: Another component (an empty custom section after the preamble): other bytes, so another key.
OTHER_COMPONENT = b"\0asm\x0d\0\x01\0\0\x02\x01a"


class CacheTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.dir = Path(temp.name) / "cache"
        self.dir.mkdir(mode=0o700)
        os.chmod(self.dir, 0o700)
        self.engine = Engine()
        self.compiles = 0

    def compile(self, engine, wasm):
        self.compiles += 1
        return Component(engine, wasm)

    def load(self, wasm=EMPTY_COMPONENT, settings="test", directory=None):
        return _cache.load_component(self.engine, wasm, settings, directory=directory or self.dir,
                                     compile=self.compile)[1]

    def written_entry(self) -> Path:
        """Loads twice: the first compiles and writes the entry, the second is a hit on it. Returns its path."""
        first = self.load()
        self.assertEqual(first.kind, "written")
        self.assertEqual(self.load(), _cache.CacheStatus("hit", first.path))
        self.assertEqual(self.compiles, 1)
        return first.path

    def stamp(self, wasm=EMPTY_COMPONENT, settings="test"):
        import hashlib
        return _cache.Key.for_component(hashlib.sha256(wasm).hexdigest(), settings).stamp_ns()

    def test_an_entry_is_written_private_with_its_stamp_then_loaded(self):
        path = self.written_entry()
        meta = os.lstat(path)
        self.assertEqual(stat.S_IMODE(meta.st_mode), 0o600)
        self.assertEqual(meta.st_mtime_ns, self.stamp())
        seconds, rest = divmod(meta.st_mtime_ns, 1_000_000_000)
        self.assertEqual((rest, seconds % 2), (0, 0))
        self.assertTrue(1_000_000_000 <= seconds < 1_000_000_000 + (1 << 24))
        self.assertEqual(path.parent, self.dir)
        self.assertRegex(path.name, r"^[0-9a-f]{64}\.cwasm$")
        self.assertEqual([name for name in os.listdir(self.dir) if name.endswith(".tmp")], [])

    def test_an_entry_written_to_after_it_was_cached_is_recompiled_and_replaced(self):
        path = self.written_entry()
        size = path.stat().st_size
        with open(path, "r+b") as out:  # a stray write in the middle of the artifact
            out.seek(size // 2)
            out.write(b"\xff" * 16)
        self.assertNotEqual(os.lstat(path).st_mtime_ns, self.stamp())
        self.assertEqual(self.load(), _cache.CacheStatus("written", path))
        self.assertEqual(self.compiles, 2)
        self.assertEqual(self.load(), _cache.CacheStatus("hit", path))

    def test_a_truncated_entry_with_its_stamp_restored_is_recompiled(self):
        path = self.written_entry()
        size = path.stat().st_size
        os.truncate(path, size // 2)
        os.utime(path, ns=(self.stamp(), self.stamp()))
        self.assertEqual(self.load(), _cache.CacheStatus("written", path))
        self.assertEqual(path.stat().st_size, size)
        self.assertEqual(self.load(), _cache.CacheStatus("hit", path))

    def test_a_zeroed_entry_with_its_stamp_restored_is_recompiled(self):
        path = self.written_entry()
        path.write_bytes(b"\0" * path.stat().st_size)
        os.utime(path, ns=(self.stamp(), self.stamp()))
        self.assertEqual(self.load(), _cache.CacheStatus("written", path))
        self.assertEqual(self.compiles, 2)
        self.assertEqual(self.load(), _cache.CacheStatus("hit", path))

    def test_an_entry_others_can_write_is_refused_and_rewritten_0600(self):
        path = self.written_entry()
        os.chmod(path, 0o666)
        os.utime(path, ns=(self.stamp(), self.stamp()))
        self.assertFalse(_cache.trusted_entry(path, self.stamp()))
        self.assertEqual(self.load(), _cache.CacheStatus("written", path))
        self.assertEqual(stat.S_IMODE(os.lstat(path).st_mode), 0o600)
        self.assertEqual(self.compiles, 2)

    def test_a_link_in_place_of_an_entry_is_not_followed(self):
        path = self.written_entry()
        target = self.dir.parent / "elsewhere.cwasm"
        os.replace(path, target)
        os.symlink(target, path)
        self.assertFalse(_cache.trusted_entry(path, self.stamp()))
        self.assertEqual(self.load(), _cache.CacheStatus("written", path))
        self.assertTrue(stat.S_ISREG(os.lstat(path).st_mode))

    @unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0, "giving a file away needs root")
    def test_an_entry_owned_by_another_user_is_refused(self):
        path = self.written_entry()
        os.chown(path, 65534, 65534)
        os.utime(path, ns=(self.stamp(), self.stamp()))
        self.assertEqual(self.load(), _cache.CacheStatus("written", path))
        self.assertEqual(os.lstat(path).st_uid, os.geteuid())

    def test_a_directory_others_can_write_is_not_used_and_a_missing_one_is_made_0700(self):
        open_dir = self.dir.parent / "open"
        open_dir.mkdir()
        os.chmod(open_dir, 0o777)
        status = self.load(directory=open_dir)
        self.assertEqual((status.kind, status.path), ("disabled", None))
        self.assertIn("only you can write", status.detail)
        self.assertEqual(os.listdir(open_dir), [])
        made = open_dir / "made"
        self.assertEqual(self.load(directory=made).kind, "written")
        self.assertEqual(stat.S_IMODE(os.lstat(made).st_mode), 0o700)

    def test_the_key_changes_with_the_bytes_the_settings_and_the_wasmtime_version(self):
        digest = "ab" * 32
        key = _cache.Key.for_component(digest, ENGINE_SETTINGS).file_name()
        self.assertEqual(key, _cache.Key.for_component(digest, ENGINE_SETTINGS).file_name())
        self.assertNotEqual(key, _cache.Key.for_component("cd" * 32, ENGINE_SETTINGS).file_name())
        self.assertNotEqual(key, _cache.Key.for_component(digest, ENGINE_SETTINGS + ";x").file_name())
        with mock.patch.object(_cache, "wasmtime_version", return_value="49.0.0"):
            self.assertNotEqual(key, _cache.Key.for_component(digest, ENGINE_SETTINGS).file_name())
        first = self.written_entry()
        other = self.load(OTHER_COMPONENT)
        self.assertEqual(other.kind, "written")
        self.assertNotEqual(other.path, first)
        self.assertEqual(self.load(settings="other").kind, "written")
        self.assertEqual(self.compiles, 3)

    def test_the_directory_keeps_the_newest_entries(self):
        old = []
        for serial in range(_cache.KEEP_ENTRIES + 2):
            path = self.dir / f"{serial:064x}.cwasm"
            path.write_bytes(b"old")
            old.append(path)
        self.written_entry()
        kept = sorted(name for name in os.listdir(self.dir) if name.endswith(".cwasm"))
        self.assertEqual(len(kept), _cache.KEEP_ENTRIES)
        self.assertIn(self.load().path.name, kept)

    def test_the_environment_names_the_directory_or_turns_the_cache_off(self):
        self.assertEqual(_cache.cache_dir({_cache.NO_CACHE_ENV: "1", _cache.CACHE_DIR_ENV: str(self.dir)}),
                         (None, "$READ_WINDOW_NO_CACHE is set"))
        self.assertEqual(_cache.cache_dir({_cache.NO_CACHE_ENV: "0", _cache.CACHE_DIR_ENV: str(self.dir)}),
                         (self.dir, ""))
        self.assertEqual(_cache.cache_dir({_cache.CACHE_DIR_ENV: "relative/dir"}),
                         (None, "$READ_WINDOW_CACHE_DIR 'relative/dir' is not an absolute path"))
        base = self.dir.parent / "xdg"
        self.assertEqual(_cache.cache_dir({"XDG_CACHE_HOME": str(base)}), (base / "read-window", ""))
        home = self.dir.parent / "home"
        self.assertEqual(_cache.cache_dir({"HOME": str(home)}), (home / ".cache" / "read-window", ""))


class ReaderCacheTest(unittest.TestCase):
    def test_a_second_reader_of_the_component_loads_it_from_the_cache(self):
        with tempfile.TemporaryDirectory() as temp:
            directory = Path(temp) / "cache"
            first = ReadWindow(cache=directory)
            self.assertEqual(first.cache_status.kind, "written")
            second = ReadWindow(cache=directory)
            self.assertEqual(second.cache_status, _cache.CacheStatus("hit", first.cache_status.path))
            (Path(temp) / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
            with second.session([temp]) as session:
                self.assertEqual(session.read("a.txt", content=True)["content"], "1|one\n2|two\n")
            off = ReadWindow(cache=False)
            self.assertEqual(off.cache_status, _cache.CacheStatus("disabled", None, "cache=False"))


def report_pdf() -> bytes:
    """The 40-page PDF the documents scenarios read."""
    import base64
    import json

    scenario = Path(__file__).resolve().parents[3] / "tests" / "scenarios" / "documents" / \
        "a_short_window_of_a_long_document_gets_a_short_map.json"
    return base64.b64decode(json.loads(scenario.read_text(encoding="utf-8"))["files"]["report.pdf"]["base64"])


class DocumentCacheTest(unittest.TestCase):
    def test_a_later_reader_windows_a_document_from_the_store_and_other_builds_are_removed(self):
        with tempfile.TemporaryDirectory() as temp:
            directory, docs = Path(temp) / "cache", Path(temp) / "docs"
            spill = Path(temp) / "spill"
            docs.mkdir()
            spill.mkdir()
            (docs / "report.pdf").write_bytes(report_pdf())
            old_build = directory / "documents" / "0123456789abcdef"
            old_build.mkdir(parents=True, mode=0o700)
            (old_build / "x.extracted").write_text("an older build's entry", encoding="utf-8")
            answers = []
            for expected in ((1, 0), (0, 1)):
                reader = ReadWindow(cache=directory)
                self.assertEqual(reader.document_cache.parent, (directory / "documents").resolve())
                self.assertFalse(old_build.exists())
                with Session(reader, [docs], writable=[spill]) as session:
                    answers.append(session.read("report.pdf", limit=5))
                    stats = session.stats()
                    self.assertEqual((stats["documents_extracted"], stats["documents_from_store"]), expected)
                    # The store is no path a request can name, and no grant a message lists.
                    hidden = session.read(str(reader.document_cache))
                    self.assertEqual(hidden["error"]["kind"], "outside_sandbox", hidden)
                    self.assertTrue(hidden["error"]["message"].endswith(
                        f"may read ({docs.resolve()}, {spill.resolve()}). Read a file under one of them."), hidden)
                    # The spill still goes to the one writable grant the caller gave.
                    session.capture_begin({"window_chars": 1000})
                    session.capture_chunk(("line\n" * 2000).encode())
                    spilled = session.capture_end()
                    self.assertEqual(Path(spilled["spill_path"]).parent, spill.resolve(), spilled)
            self.assertEqual(answers[0], answers[1])
            self.assertTrue(answers[0]["text"].startswith("1|--- page 1 of 40 ---\n"), answers[0])
            entries = list(reader.document_cache.iterdir())
            self.assertEqual([entry.suffix for entry in entries], [".extracted"])

    def test_a_session_after_another_build_removed_the_store_makes_it_again(self):
        with tempfile.TemporaryDirectory() as temp:
            directory, docs = Path(temp) / "cache", Path(temp) / "docs"
            docs.mkdir()
            (docs / "report.pdf").write_bytes(report_pdf())
            reader = ReadWindow(cache=directory)
            # What a process of another build does as it starts.
            shutil.rmtree(reader.document_cache)
            with Session(reader, [docs]) as session:
                self.assertTrue(session.read("report.pdf", limit=5)["text"].startswith("1|--- page 1 of 40 ---\n"))
            self.assertEqual([entry.suffix for entry in reader.document_cache.iterdir()], [".extracted"])

    def test_a_session_restarts_without_a_store_it_cannot_open(self):
        with tempfile.TemporaryDirectory() as temp:
            directory, docs = Path(temp) / "cache", Path(temp) / "docs"
            docs.mkdir()
            (docs / "big.log").write_bytes(b"0123456789" * 10_000_000 + b"\n")
            (docs / "small.txt").write_text("one\ntwo\n", encoding="utf-8")
            reader = ReadWindow(cache=directory)
            with Session(reader, [docs], deadline=0.001) as session:
                # A process of another build removed the store, and a file stands where it was: it cannot be made
                # again, so the restart after the deadline goes on without it.
                shutil.rmtree(reader.document_cache)
                reader.document_cache.write_bytes(b"not a directory")
                with self.assertRaises(HostError) as raised:
                    session.read("big.log")
                self.assertEqual(raised.exception.cause, "deadline", raised.exception.message)
                self.assertTrue(raised.exception.session_restarted, raised.exception.message)
                answer = session.read("small.txt")
                self.assertTrue(answer["text"].startswith("1|one\n2|two\n\n"), answer)
                self.assertIn("so no document cache is kept", " ".join(answer["warnings"]), answer)

    def test_the_document_cache_is_off_when_asked(self):
        with tempfile.TemporaryDirectory() as temp:
            with mock.patch.dict(os.environ, {_cache.DOCUMENT_CACHE_ENV: " Off "}):
                self.assertIsNone(ReadWindow(cache=Path(temp) / "cache").document_cache)
            self.assertFalse((Path(temp) / "cache" / "documents").exists())
            self.assertIsNone(ReadWindow(cache=False).document_cache)


if __name__ == "__main__":
    unittest.main()
