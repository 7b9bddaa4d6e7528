//! The rules on the command line: `khanate perft`, `moves` and `play`, run as the real binary.

use std::process::{Command, Output};

fn khanate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_khanate"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(args: &[&str]) -> String {
    let out = khanate(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn perft_counts_legal_move_sequences_from_the_start() {
    assert_eq!(stdout(&["perft", "ouk-chatrang", "3"]), "15031\n");
    let fen = "r1s1ks1r/3nm3/pppNpppp/3n4/5P2/PPPPPNPP/8/R1SKMS1R b DEe - 0 5";
    assert_eq!(
        stdout(&["perft", "ouk-chatrang", "--fen", fen, "3"]),
        "2052\n"
    );
    assert_eq!(
        stdout(&["perft", "ouk-chatrang", "--position", fen, "1"]),
        "2\n"
    );
}

#[test]
fn perft_divide_lists_each_root_move_then_the_total() {
    let text = stdout(&["perft", "ouk-chatrang", "--divide", "2"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 25 + 2, "{text}");
    assert_eq!(lines[0], "a1a2: 25");
    assert!(lines.contains(&"d1b2: 25"), "{text}");
    assert_eq!(lines[25], "");
    assert_eq!(lines[26], "625");
}

#[test]
fn moves_are_listed_sorted_one_a_line() {
    let only = "rnsmks1r/4n3/pppNpppp/3p4/8/PPPPPPPP/8/R1SKMSNR b DEde - 1 3";
    assert_eq!(stdout(&["moves", "ouk-chatrang", "--fen", only]), "e8d7\n");
    let start = stdout(&["moves", "ouk-chatrang"]);
    let moves: Vec<&str> = start.lines().collect();
    assert_eq!(moves.len(), 25);
    let mut sorted = moves.clone();
    sorted.sort_unstable();
    assert_eq!(moves, sorted);
}

#[test]
fn play_prints_the_fen_then_the_status() {
    assert_eq!(
        stdout(&[
            "play",
            "ouk-chatrang",
            "--fen",
            "8/8/4k3/8/8/2R1K3/8/8 w - - 0 1",
            "c3c4"
        ]),
        "8/8/4k3/8/2R5/4K3/8/8 b - 30 6 1\nongoing\n"
    );
    assert_eq!(
        stdout(&[
            "play",
            "ouk-chatrang",
            "--fen",
            "6k1/8/6K1/8/8/8/8/R7 w - - 0 1",
            "a1a8"
        ]),
        "R5k1/8/6K1/8/8/8/8/8 b - 30 6 1\n1-0 checkmate\n"
    );
    assert_eq!(
        stdout(&[
            "play",
            "ouk-chatrang",
            "--fen",
            "k7/r7/8/8/8/8/6PP/7K b - 126 126 70",
            "a8b8"
        ]),
        "1k6/r7/8/8/8/8/6PP/7K w - 126 127 71\n1/2-1/2 counting\n"
    );
}

#[test]
fn bad_input_exits_non_zero_and_says_what_is_wrong() {
    let out = khanate(&["play", "ouk-chatrang", "e3e4", "e3e5"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 2 (e3e5)"), "{err}");
    let out = khanate(&["moves", "chess"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown game \"chess\""));
    let out = khanate(&["perft", "ouk-chatrang", "--fen", "nonsense", "1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad FEN"));
}

#[test]
fn khan_perft_counts_move_strings_and_turn_perft_counts_positions() {
    assert_eq!(stdout(&["perft", "khan", "2"]), "41616\n");
    assert_eq!(stdout(&["perft", "khan", "--positions", "2"]), "16900\n");
    assert_eq!(stdout(&["perft", "khan", "--positions", "1"]), "130\n");
    let moves = stdout(&["moves", "khan"]);
    assert_eq!(moves.lines().count(), 204);
    let diagram_2 = "10/2s7/3K6/1K2s2s2/S5k3/10/6k3/5K4/7k2/10 b";
    assert_eq!(
        stdout(&["play", "khan", "--position", diagram_2, "h7-h5-g3-i1"]),
        "10/2s7/3K6/1K2s5/S5k3/10/6k3/5K4/7k2/8s1 w\n0-1 goal_row\n"
    );
}

#[test]
fn khan_tsin_perft_follows_the_rules_file_vectors() {
    assert_eq!(
        stdout(&["perft", "khan-tsin", "--players", "3", "2"]),
        "528\n"
    );
    let three = "w/w/w/g/g/w/w/b/g/g/g/w/w/B/w/b/b/b/g/W/g/b/G/b/g/w/g/w/b/b/b/g/g/b/w/b 231231231231231231231231231231231231 wgb w";
    assert_eq!(
        stdout(&["perft", "khan-tsin", "--position", three, "2"]),
        "409\n"
    );
    let two = "g/b/b/w/b/b/w/G/b/w/w/g/g/w/w/b/b/b/w/W/w/b/b/g/b/g/g/g/w/g/g/g/w/b/g/w 231231231231231231231231231231231231 wg w";
    assert_eq!(
        stdout(&["perft", "khan-tsin", "--position", two, "2"]),
        "490\n"
    );
    let placements = stdout(&["moves", "khan-tsin", "--players", "3"]);
    assert_eq!(
        placements.lines().count(),
        24,
        "pawn or Khan-pawn on each of the 12 triple squares"
    );
    assert!(stdout(&["play", "khan-tsin", "p1"]).ends_with("\nongoing\n"));
}

#[test]
fn options_a_game_does_not_have_are_refused_on_the_command_line() {
    let out = khanate(&["perft", "ouk-chatrang", "--players", "3", "1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--players"));
}

#[test]
fn a_khan_list_that_leaves_long_chains_out_says_so() {
    // A lattice of Soldiers: about a million jump chains for White's Khan on a1.
    let lattice = "10/10/10/1S1s1S4/sSsSsSs3/1S1s1S4/sSsSsSs3/1S1s1S4/sSsSsSs3/KS1S1S4 w";
    let out = khanate(&["moves", "khan", "--position", lattice]);
    assert!(out.status.success());
    let listed = String::from_utf8_lossy(&out.stdout).lines().count();
    assert!(listed <= 10_000, "{listed}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("only jump chains short enough"));
    let start = khanate(&["moves", "khan"]);
    assert!(
        start.stderr.is_empty(),
        "the start position's list is complete"
    );
}

#[test]
fn a_position_text_beginning_with_a_dash_is_read_as_the_position() {
    // The empty Khan-Tsin board before placement: its first square is `-`.
    let empty = format!(
        "{} 231231231231231231231231231231231231 wg w",
        ["-"; 36].join("/")
    );
    for flag in ["--position", "--fen"] {
        let listed = stdout(&["moves", "khan-tsin", flag, &empty]);
        assert_eq!(listed.lines().count(), 24, "{flag}: {listed}");
        let equals = stdout(&["moves", "khan-tsin", &format!("{flag}={empty}")]);
        assert_eq!(equals, listed);
    }
    assert_eq!(
        stdout(&["perft", "khan-tsin", "--position", &empty, "1"]),
        "24\n"
    );
    assert!(stdout(&["play", "khan-tsin", "--position", &empty, "p1"]).ends_with("\nongoing\n"));
}
