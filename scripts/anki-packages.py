#!/usr/bin/env python3
"""Writes Anki packages with Anki's own library (the `anki` wheel), for Warren's import tests.

Usage: anki-packages.py OUT_DIR           the packages below
       anki-packages.py --large OUT_DIR   large.apkg: 10,000 notes with 100,000 reviews, for
                                          `cargo bench --bench import`

Writes, into OUT_DIR:
  modern.apkg   deck "Biology" (and its subdeck "Biology::Cells"), as current Anki exports it
                (collection.anki21b, zstd, protobuf media map), with scheduling and media, an
                image occlusion note among its notes;
  legacy.apkg   the same deck with "Support older Anki versions" (collection.anki21);
  whole.colpkg  the whole collection: "Biology", "Biology::Cells" and "Chemistry", with
                Chemistry's card pulled into the filtered deck "Cram";
  genanki.apkg  a deck as genanki (and Anki 2.0) writes it: collection.anki2, schema 11;
  newer-schema.apkg  legacy.apkg with its schema raised past what Warren reads;
  expected.json what each package holds, for the tests to compare with: per note, its fields,
  its cards' due dates (ms, and in days from today as Anki's scheduler counts them),
  suspended flags and review history.
"""

import json
import os
import sys
import tempfile
import time

from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

DAY_MS = 86_400_000
# A tiny PNG (1x1, red).
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c49444154"
    "08d763f8cfc000000301010018dd8db00000000049454e44ae426082"
)


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp()
    col = Collection(os.path.join(work, "collection.anki2"))
    now_ms = int(time.time() * 1000)

    biology = col.decks.id("Biology")
    cells = col.decks.id("Biology::Cells")
    chemistry = col.decks.id("Chemistry")
    basic = col.models.by_name("Basic")
    reversed_ = col.models.by_name("Basic (and reversed card)")
    cloze = col.models.by_name("Cloze")
    image = col.media.write_data("mitochondrion.png", PNG)

    # When they were written: Anki counts days from its day's start (4 am by default), so a
    # card "due in 40 days" is due 39 to 40 days after this.
    expected = {"generated_ms": now_ms, "notes": []}

    def add(model, deck, fields, tags=()):
        note = col.new_note(model)
        for i, value in enumerate(fields):
            note.fields[i] = value
        note.tags = list(tags)
        col.add_note(note, deck)
        expected["notes"].append(
            {"id": note.id, "deck": col.decks.name(deck), "model": model["name"], "fields": fields, "cards": []}
        )
        return note

    add(basic, biology, ["What is the powerhouse of the cell?", f'The mitochondrion<br><img src="{image}">'])
    add(reversed_, biology, ["Ribosome", "The organelle that translates mRNA into protein"])
    add(cloze, cells, ["The {{c1::nucleus}} stores DNA; the {{c2::Golgi apparatus}} packages proteins."])
    add(cloze, cells, ["{{c1::Paris}} is the capital of {{c2::France}}."])
    add(basic, cells, ["Water's formula", "H<sub>2</sub>O, about 3×10<sup>8</sup> molecules in a tiny drop"])
    add(basic, cells, ["Area of a circle", r"\(A = \pi r^2\)"])
    add(basic, cells, ["Mass–energy", r"\[E = mc^2\]"])
    add(basic, biology, ["Heartbeat sound", "[sound:heartbeat.mp3] a lub-dub"])
    add(basic, biology, ["Steps of mitosis", "<ol><li>prophase</li><li>metaphase</li></ol>"])
    suspended = add(basic, biology, ["A suspended fact", "Suspended cards stay behind"])
    # An image occlusion note (Anki 23.10+): shapes over an image, which a point cannot be.
    heart = col.media.write_data("heart.png", PNG)
    add(
        col.models.by_name("Image Occlusion"),
        biology,
        ["{{c1::image-occlusion:rect:left=.1:top=.1:width=.2:height=.2:oi=1}}", f'<img src="{heart}">', "Chambers of the heart", "", ""],
    )
    add(basic, chemistry, ["Symbol of gold", "Au"])

    # Review history written as Anki writes it: revlog rows (id = when, in ms), and the card
    # left in review, due in 40 days, with the interval and ease the last review gave.
    def review(card, history, due_in_days, interval):
        for i, (days_ago, ease, ivl) in enumerate(history):
            at = now_ms - days_ago * DAY_MS + i
            col.db.execute(
                "insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) values (?,?,?,?,?,?,?,?,?)",
                at, card.id, -1, ease, ivl, 0, 2500, 6000, 1 if i else 0,
            )
        card.type = 2
        card.queue = 2
        card.ivl = interval
        card.due = col.sched.today + due_in_days
        card.factor = 2500
        card.reps = len(history)
        card.lapses = sum(1 for _, ease, _ in history if ease == 1)
        col.update_card(card)

    powerhouse = col.get_note(expected["notes"][0]["id"]).cards()[0]
    review(powerhouse, [(60, 3, 1), (59, 3, 3), (56, 1, 1), (55, 3, 4), (50, 4, 30)], 40, 80)
    gold = col.get_note(expected["notes"][-1]["id"]).cards()[0]
    review(gold, [(20, 3, 1), (19, 3, 10)], 9, 10)
    sus_card = suspended.cards()[0]
    review(sus_card, [(10, 2, 1)], 3, 4)
    col.sched.suspend_cards([sus_card.id])
    # The reversed note's first card answered through Anki's own scheduler, twice Good: Anki
    # writes the review log and the due date itself.
    for _ in range(2):
        card = col.get_note(expected["notes"][1]["id"]).cards()[0]
        card.start_timer()
        col.sched.answerCard(card, 3)
    # Its reversed card, once: one note is one point, so this review stays behind (named).
    card = col.get_note(expected["notes"][1]["id"]).cards()[1]
    card.start_timer()
    col.sched.answerCard(card, 3)
    # A filtered deck that pulls Chemistry's card away from its own deck for now.
    cram = col.decks.new_filtered("Cram")
    filtered = col.decks.get(cram)
    filtered["terms"] = [["deck:Chemistry", 100, 0]]
    col.decks.save(filtered)
    col.sched.rebuild_filtered_deck(cram)

    for note in expected["notes"]:
        for card in col.get_note(note["id"]).cards():
            history = col.db.all("select id, ease from revlog where cid = ? order by id", card.id)
            # A card in a filtered deck keeps its own due day in odue.
            due = card.odue if card.odid else card.due
            due_ms = (col.crt + due * 86400) * 1000 if card.type == 2 else None
            due_in_days = due - col.sched.today if card.type == 2 else None
            note["cards"].append(
                {
                    "ord": card.ord,
                    "suspended": card.queue == -1,
                    "new": card.type == 0,
                    "filtered": bool(card.odid),
                    "due_ms": due_ms,
                    "due_in_days": due_in_days,
                    "reviews": [{"at": at, "ease": ease} for at, ease in history],
                }
            )

    options = lambda legacy: ExportAnkiPackageOptions(
        with_scheduling=True, with_deck_configs=True, with_media=True, legacy=legacy
    )
    col.export_anki_package(out_path=os.path.join(out_dir, "modern.apkg"), options=options(False), limit=DeckIdLimit(biology))
    col.export_anki_package(out_path=os.path.join(out_dir, "legacy.apkg"), options=options(True), limit=DeckIdLimit(biology))
    col.export_collection_package(os.path.join(out_dir, "whole.colpkg"), include_media=True, legacy=False)
    col.close()
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    older(out_dir)
    newer_schema(out_dir)


def newer_schema(out_dir: str) -> None:
    """newer-schema.apkg: legacy.apkg with its collection's schema raised to 19, which no Anki
    has written yet: Warren must refuse it by name."""
    import sqlite3
    import zipfile

    work = tempfile.mkdtemp()
    with zipfile.ZipFile(os.path.join(out_dir, "legacy.apkg")) as z:
        z.extractall(work)
        names = z.namelist()
    db = sqlite3.connect(os.path.join(work, "collection.anki21"))
    db.execute("update col set ver = 19")
    db.commit()
    db.close()
    with zipfile.ZipFile(os.path.join(out_dir, "newer-schema.apkg"), "w", zipfile.ZIP_DEFLATED) as z:
        for name in names:
            z.write(os.path.join(work, name), name)


def older(out_dir: str) -> None:
    """genanki.apkg: a deck in the oldest layout Warren reads (collection.anki2, schema 11)."""
    import genanki

    model = genanki.Model(
        1607392319,
        "Simple",
        fields=[{"name": "Question"}, {"name": "Answer"}],
        templates=[{"name": "Card 1", "qfmt": "{{Question}}", "afmt": "{{FrontSide}}<hr id=answer>{{Answer}}"}],
    )
    deck = genanki.Deck(2059400110, "Capitals::Europe")
    for question, answer in [("Capital of Italy", "Rome"), ("Capital of Spain", "Madrid")]:
        deck.add_note(genanki.Note(model=model, fields=[question, answer]))
    genanki.Package(deck).write_to_file(os.path.join(out_dir, "genanki.apkg"))


def large(out_dir: str) -> None:
    """One deck of 10,000 Basic notes, each card reviewed ten times over the last 300 days."""
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp()
    col = Collection(os.path.join(work, "collection.anki2"))
    now_ms = int(time.time() * 1000)
    deck = col.decks.id("Large deck")
    basic = col.models.by_name("Basic")
    for i in range(10_000):
        note = col.new_note(basic)
        note.fields[0] = f"Question number {i}: which group holds item {i}?"
        note.fields[1] = f"Item {i} belongs to group {i % 97}, <b>not</b> group {(i + 1) % 97}."
        col.add_note(note, deck)
    rows = []
    cards = col.db.list("select id from cards")
    for n, cid in enumerate(cards):
        for k in range(10):
            at = now_ms - (300 - k * 28) * DAY_MS + n
            ease = 1 if (n + k) % 7 == 0 else 3
            rows.append((at, cid, -1, ease, 1 + k * 3, 0, 2500, 5000, 1 if k else 0))
    col.db.executemany(
        "insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) values (?,?,?,?,?,?,?,?,?)", rows
    )
    col.db.execute(
        "update cards set type = 2, queue = 2, ivl = 30, due = ?, reps = 10, factor = 2500", col.sched.today + 20
    )
    options = ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True, with_media=True, legacy=False)
    col.export_anki_package(out_path=os.path.join(out_dir, "large.apkg"), options=options, limit=DeckIdLimit(deck))
    col.close()


if __name__ == "__main__":
    if sys.argv[1] == "--large":
        large(sys.argv[2])
    else:
        main(sys.argv[1])
