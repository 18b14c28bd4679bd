//! Recall sets written for Warren, given to every new learner so they can study at once.
//! Each point has a cue that asks about it without giving it away; resources feed the
//! rabbit-hole explorer and are shown after the points they support are recalled.

use warren_app::api::ResourceKind;
use warren_app::learner::LearnerId;

use crate::store::{NewPoint, NewResource, NewSet, Store, StoreError};

fn point(content: &str, context: &str) -> NewPoint {
    NewPoint { content: content.into(), context: context.into(), card: None, log: None }
}

fn text(title: &str, body: &str, points: &[usize]) -> NewResource {
    NewResource {
        kind: ResourceKind::Text,
        title: title.into(),
        body: body.into(),
        points: points.iter().map(|&i| (i, 1.0)).collect(),
        ..NewResource::default()
    }
}

pub fn sets() -> Vec<NewSet> {
    vec![
        NewSet {
            name: "The living cell".into(),
            description: "The main parts of a eukaryotic cell and what each one does.".into(),
            guidelines: "Accept everyday wording for the organelles' jobs; the names matter more than textbook phrasing.".into(),
            points: vec![
                point(
                    "Mitochondria produce most of the cell's ATP through cellular respiration.",
                    "Which part of the cell supplies most of its usable energy, and in what form?",
                ),
                point(
                    "Ribosomes translate messenger RNA into proteins.",
                    "Where are proteins assembled, and from which instructions?",
                ),
                point(
                    "The cell membrane is a phospholipid bilayer that controls what enters and leaves the cell.",
                    "What is the cell's outer boundary made of, and what is its job?",
                ),
                point(
                    "The nucleus stores the cell's DNA and controls gene expression.",
                    "Where is the genetic material kept, and what does that compartment control?",
                ),
                point(
                    "Chloroplasts carry out photosynthesis, turning light energy into chemical energy.",
                    "Plant cells have an organelle that animal cells lack. What does it do with light?",
                ),
            ],
            resources: vec![
                text(
                    "Where mitochondria came from",
                    "Mitochondria descend from free-living bacteria that were engulfed by an ancestral cell about two \
                     billion years ago. This idea is called endosymbiosis. It explains why mitochondria have their own \
                     circular DNA and their own ribosomes, and why they divide on their own, much as bacteria do. \
                     Chloroplasts have a similar origin in cyanobacteria.",
                    &[0],
                ),
                text(
                    "ATP, the energy currency",
                    "ATP stores energy in the bonds between its phosphate groups. When a cell needs energy it splits \
                     off one phosphate, leaving ADP. A busy cell recycles its own weight in ATP every day.",
                    &[],
                ),
                NewResource {
                    kind: ResourceKind::Image,
                    title: "A eukaryotic cell, simplified".into(),
                    url: Some("/demo/cell.svg".into()),
                    mime_type: Some("image/svg+xml".into()),
                    licence: Some("CC0 1.0, drawn for Warren".into()),
                    // Its labels name every organelle: it comes with the set's last point (a
                    // recall shows what it links to), not before questions it would answer.
                    points: vec![(4, 0.8)],
                    ..NewResource::default()
                },
            ],
        },
        NewSet {
            name: "Rome: from republic to empire".into(),
            description: "The events that turned the Roman Republic into an empire ruled by one man.".into(),
            guidelines: "Dates within a year or two are fine if the learner has the sequence right.".into(),
            points: vec![
                point(
                    "Julius Caesar crossed the Rubicon in 49 BC, starting a civil war.",
                    "What river did a general cross with his army, against the law, and what followed?",
                ),
                point(
                    "Caesar was assassinated on the Ides of March, 44 BC.",
                    "How did Caesar's rule end, and when?",
                ),
                point(
                    "Octavian defeated Antony and Cleopatra at the Battle of Actium in 31 BC.",
                    "Which sea battle left Caesar's heir without a rival?",
                ),
                point(
                    "Octavian became Augustus, the first Roman emperor, in 27 BC.",
                    "What title and new role did Caesar's heir take, and in which year?",
                ),
                point(
                    "In the Republic, two consuls were elected each year to lead the state.",
                    "Before the emperors, who led Rome and how long did they serve?",
                ),
                point(
                    "The Senate was Rome's council of former magistrates, advising on policy and finance.",
                    "What was the Senate, and who sat in it?",
                ),
            ],
            resources: vec![text(
                "Why the Rubicon mattered",
                "The Rubicon marked the border between the province of Cisalpine Gaul and Italy proper. A governor \
                 who led troops across it into Italy committed treason. Caesar is said to have declared that the die \
                 was cast as he crossed. The phrase crossing the Rubicon still means passing a point of no return.",
                &[0],
            )],
        },
        NewSet {
            name: "Searching and sorting".into(),
            description: "How fast the classic search and sort algorithms run, and why.".into(),
            guidelines: "Big-O notation can be said in words, e.g. \"n log n\".".into(),
            points: vec![
                point(
                    "Binary search finds an item in a sorted array in O(log n) time by halving the range each step.",
                    "How do you search a sorted array quickly, and how does its cost grow?",
                ),
                point(
                    "Merge sort runs in O(n log n) time in every case and is stable.",
                    "Which divide-and-conquer sort has the same cost in its best and worst cases?",
                ),
                point(
                    "Quicksort averages O(n log n) but degrades to O(n squared) with poor pivots.",
                    "What is quicksort's weakness, and what causes it?",
                ),
                point(
                    "A hash table gives average O(1) lookups by hashing keys into buckets.",
                    "Which structure gives constant-time lookups on average, and how?",
                ),
                point(
                    "Insertion sort is O(n squared) in general but fast on nearly sorted data.",
                    "Which simple sort shines when the input is almost in order?",
                ),
            ],
            resources: vec![text(
                "Why n log n is the floor",
                "Any sort that only compares pairs of items must, in the worst case, make about n log n comparisons. \
                 There are n factorial possible orders, and each comparison can at best halve the candidates, so \
                 log of n factorial comparisons are needed, which grows like n log n. Counting sort and radix sort \
                 beat this bound because they do not compare items.",
                &[1],
            )],
        },
    ]
}

/// Gives a learner the demo sets if they have no sets at all. Returns how many were added.
pub async fn ensure_demo_sets(store: &Store, learner: &LearnerId) -> Result<usize, StoreError> {
    if store.set_count(learner).await? > 0 {
        return Ok(0);
    }
    let sets = sets();
    for set in &sets {
        store.create_set(learner, set).await?;
    }
    Ok(sets.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_sets_are_complete() {
        let sets = sets();
        assert!(sets.len() >= 3);
        for set in &sets {
            assert!((4..=7).contains(&set.points.len()), "{}", set.name);
            for p in &set.points {
                assert!(!p.context.is_empty(), "every demo point has a cue");
                // A cue must not simply give the point away.
                assert_ne!(p.context, p.content);
            }
            for r in &set.resources {
                assert!(r.points.iter().all(|(i, _)| *i < set.points.len()));
            }
        }
    }
}
