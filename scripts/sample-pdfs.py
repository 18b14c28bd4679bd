#!/usr/bin/env python3
"""Writes PDFs for the drafting tests with fpdf2 (PyPI), as a word processor would.

Usage: sample-pdfs.py OUT_DIR

Writes, into OUT_DIR:
  passage.pdf  two pages of prose with a text layer (a heading, paragraphs, a hyphenated line);
  scanned.pdf  one page that is only a picture of text, as a scanner makes (no text layer).
"""

import os
import sys
import tempfile

from fpdf import FPDF
from PIL import Image, ImageDraw

PASSAGE = [
    "The Water Cycle",
    "Evaporation is the process by which liquid water turns into water vapour. The Sun supplies "
    "the energy that drives evaporation from oceans, lakes and rivers.",
    "Condensation happens when water vapour cools and becomes tiny droplets of liquid water. "
    "Clouds are made of billions of these droplets suspended in the air.",
    "Precipitation is water that falls from clouds as rain, snow, sleet or hail. It returns "
    "water from the atmosphere to the surface of the Earth.",
    "About 97 percent of the water on Earth is salt water in the oceans. Most of the fresh water "
    "is frozen in glaciers and ice caps.",
]


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    pdf = FPDF()
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=16)
    pdf.cell(0, 10, PASSAGE[0], new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=12)
    for i, paragraph in enumerate(PASSAGE[1:]):
        if i == 2:
            pdf.add_page()
        pdf.multi_cell(0, 7, paragraph, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
    pdf.output(os.path.join(out_dir, "passage.pdf"))

    picture = os.path.join(tempfile.mkdtemp(), "scan.png")
    image = Image.new("RGB", (800, 300), "white")
    ImageDraw.Draw(image).text((20, 20), "Mitochondria make most of the cell's ATP.", fill="black")
    image.save(picture)
    scan = FPDF()
    scan.add_page()
    scan.image(picture, x=10, y=10, w=180)
    scan.output(os.path.join(out_dir, "scanned.pdf"))


if __name__ == "__main__":
    main(sys.argv[1])
