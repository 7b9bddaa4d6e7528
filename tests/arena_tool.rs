//! The strength tool `khanate-arena` kept working: short matches of every game through the built
//! binary, checked through its JSON report (counts, alternating seats, replays by seed). Levels 1
//! and 2 play a few short games; the one strength test, a ladder of two-player Khan-Tsin, takes
//! minutes in a release build and is ignored (run it with the command in its comment).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// Runs `khanate-arena` with `args` and `--json` into a temporary file named by `tag`; returns
/// the Markdown report and the JSON one.
fn arena(tag: &str, args: &[&str]) -> (String, Value) {
    let json: PathBuf = std::env::temp_dir().join(format!(
        "khanate-arena-test-{}-{tag}.json",
        std::process::id()
    ));
    let output = Command::new(env!("CARGO_BIN_EXE_khanate-arena"))
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("khanate-arena runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {stderr}");
    let report = std::fs::read_to_string(&json).expect("the JSON report is written");
    std::fs::remove_file(&json).expect("remove the JSON report");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        serde_json::from_str(&report).expect("a JSON report"),
    )
}

/// The one match of a report, checked for counts that add up.
fn only_match(report: &Value, games: u64) -> &Value {
    let matches = report["matches"].as_array().expect("matches");
    assert_eq!(matches.len(), 1);
    let m = &matches[0];
    let s = &m["summary"];
    assert_eq!(s["games"], games, "{s}");
    let total = ["b_wins", "b_draws", "b_losses"]
        .iter()
        .map(|k| s[k].as_u64().expect(k))
        .sum::<u64>();
    assert_eq!(total, games, "{s}");
    assert_eq!(
        m["records"].as_array().expect("records").len() as u64,
        games
    );
    let capped = s["capped"].as_u64().expect("capped");
    assert!(capped <= s["b_draws"].as_u64().unwrap(), "{s}");
    m
}

#[test]
fn two_player_games_alternate_seats_and_share_openings() {
    for game in ["ouk-chatrang", "khan", "khan-tsin"] {
        let args = [
            "--game",
            game,
            "--a",
            "1",
            "--b",
            "2",
            "--games",
            "2",
            "--max-plies",
            "24",
            "--seed",
            "7",
        ];
        let (markdown, report) = arena(game, &args);
        assert!(markdown.contains("| L1 v L2 | 2 |"), "{markdown}");
        let m = only_match(&report, 2);
        assert_eq!(m["a"], serde_json::json!({"kind": "level", "level": 1}));
        assert_eq!(m["b"], serde_json::json!({"kind": "level", "level": 2}));
        let records = m["records"].as_array().unwrap();
        // Game i gives side A seat i % 2.
        assert_eq!(records[0]["seats"], serde_json::json!(["a", "b"]), "{game}");
        assert_eq!(records[1]["seats"], serde_json::json!(["b", "a"]), "{game}");
        // Both games of the pair start with the same random opening.
        let opening = |r: &Value| {
            let n = r["opening_plies"].as_u64().unwrap() as usize;
            r["moves"].as_array().unwrap()[..n].to_vec()
        };
        assert_eq!(records[0]["opening_group"], records[1]["opening_group"]);
        assert_eq!(opening(&records[0]), opening(&records[1]), "{game}");
        for r in records {
            let plies = r["moves"].as_array().unwrap().len();
            assert!(plies <= 24, "{r}");
            // A capped game stopped at the cap, undecided.
            assert_eq!(r["capped"], r["reason"] == "max_plies", "{r}");
            if r["capped"] == true {
                assert_eq!((plies, &r["winner"]), (24, &Value::Null), "{r}");
            }
            // The winner's side is the side of the winning seat.
            if let Some(seat) = r["winner_seat"].as_u64() {
                assert_eq!(r["winner"], r["seats"][seat as usize], "{r}");
            }
        }
        let think = &m["summary"]["think_ms_b"];
        assert!(think["moves"].as_u64() > Some(0), "{think}");
        let mean = think["mean"].as_f64().expect("a mean think time");
        let max = think["max"].as_f64().expect("a longest think time");
        assert!((0.0..=max).contains(&mean), "{think}");
    }
}

#[test]
fn three_player_khan_tsin_rotates_the_higher_level() {
    let args = [
        "--game",
        "khan-tsin",
        "--players",
        "3",
        "--a",
        "1",
        "--b",
        "2",
        "--games",
        "3",
        "--max-plies",
        "30",
        "--opening-plies",
        "2",
    ];
    let (markdown, report) = arena("three", &args);
    assert!(markdown.contains("33.3"), "{markdown}");
    let m = only_match(&report, 3);
    assert_eq!(m["summary"]["expected_pct"], 33.3);
    let seats: Vec<Value> = m["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["seats"].clone())
        .collect();
    assert_eq!(
        seats,
        [
            serde_json::json!(["b", "a", "a"]),
            serde_json::json!(["a", "b", "a"]),
            serde_json::json!(["a", "a", "b"]),
        ]
    );
}

#[test]
fn the_same_seed_replays_the_same_games() {
    let args = |seed: &'static str| {
        [
            "--game",
            "ouk-chatrang",
            "--a",
            "1",
            "--b",
            "1",
            "--games",
            "4",
            "--max-plies",
            "40",
            "--threads",
            "2",
            "--seed",
            seed,
        ]
    };
    let moves = |report: &Value| -> Vec<Value> {
        report["matches"][0]["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["moves"].clone())
            .collect()
    };
    let (_, first) = arena("seed-a", &args("11"));
    let (_, again) = arena("seed-b", &args("11"));
    let (_, other) = arena("seed-c", &args("12"));
    assert_eq!(moves(&first), moves(&again));
    assert_ne!(moves(&first), moves(&other));
    // The two pairs have different openings; the games of a pair differ after it.
    let m = moves(&first);
    assert_ne!(m[0], m[1]);
    assert_ne!(m[0], m[2]);
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        &["--game", "khan", "--players", "3"][..],
        &["--game", "khan", "--uci", "/bin/false"][..],
        &["--game", "khan", "--a", "6", "--b", "2"][..],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_khanate-arena"))
            .args(args)
            .output()
            .expect("khanate-arena runs");
        assert!(!output.status.success(), "{args:?}");
    }
}

/// A stand-in UCI engine: a shell script offering `variants`, showing the start position for
/// `d`, answering a `go ... searchmoves` with `bestmove e3e4` and any other `go` with
/// `bestmove`.
fn fake_engine(tag: &str, variants: &str, bestmove: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "khanate-arena-test-{}-{tag}.sh",
        std::process::id()
    ));
    let script = format!(
        "#!/bin/sh\n\
         while read -r line; do\n\
           case \"$line\" in\n\
             uci) echo 'option name UCI_Variant type combo default chess {variants}'; echo uciok ;;\n\
             isready) echo readyok ;;\n\
             d) echo 'Fen: rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1' ;;\n\
             go*searchmoves*) echo 'bestmove e3e4' ;;\n\
             go*) echo 'bestmove {bestmove}' ;;\n\
             quit) exit 0 ;;\n\
           esac\n\
         done\n"
    );
    std::fs::write(&path, script).expect("write the fake engine");
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&path, permissions).expect("make the fake engine executable");
    path
}

/// Runs one Ouk Chatrang game of `engine` (as White, from the start position) against level 1;
/// returns the standard error of the failed run.
fn failing_uci_run(engine: &PathBuf) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_khanate-arena"))
        .args(["--game", "ouk-chatrang", "--b", "1", "--games", "1"])
        .args(["--opening-plies", "0", "--uci"])
        .arg(engine)
        .output()
        .expect("khanate-arena runs");
    std::fs::remove_file(engine).expect("remove the fake engine");
    assert!(!output.status.success());
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn an_illegal_engine_move_is_an_error_with_the_position() {
    let stderr = failing_uci_run(&fake_engine("illegal", "var cambodian", "e3e5 ponder e6e5"));
    assert!(stderr.contains("\"e3e5\""), "{stderr}");
    assert!(stderr.contains("illegal_move"), "{stderr}");
    assert!(
        stderr.contains("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w"),
        "{stderr}"
    );
}

#[test]
fn a_refused_engine_move_can_be_listed_and_searched_again() {
    let engine = fake_engine("retry", "var cambodian", "e3e5");
    let args = [
        "--game",
        "ouk-chatrang",
        "--b",
        "1",
        "--games",
        "1",
        "--opening-plies",
        "0",
        "--max-plies",
        "1",
        "--uci-retry-refused",
        "--uci",
        engine.to_str().unwrap(),
    ];
    let (markdown, report) = arena("retry", &args);
    std::fs::remove_file(&engine).expect("remove the fake engine");
    assert!(markdown.contains("`e3e5`"), "{markdown}");
    let m = only_match(&report, 1);
    assert_eq!(m["summary"]["engine_refused_moves"], 1);
    let game = &m["records"][0];
    assert_eq!(game["moves"], serde_json::json!(["e3e4"]));
    assert_eq!(game["refused"][0]["engine_move"], "e3e5");
    assert_eq!(game["refused"][0]["ply"], 0);
}

#[test]
fn an_engine_without_the_variant_is_refused() {
    let stderr = failing_uci_run(&fake_engine("novariant", "var chess var makruk", "e3e4"));
    assert!(
        stderr.contains("does not offer the variant \"cambodian\""),
        "{stderr}"
    );
}

/// Fairy-Stockfish's `cambodian` variant reads our FENs and moves (every position it searches is
/// checked against ours) and its moves pass our rules. Needs the engine, which the project does
/// not ship: `apt-get install fairy-stockfish`, then
/// `cargo test --test arena_tool -- --ignored`.
#[test]
#[ignore = "needs Fairy-Stockfish: apt-get install fairy-stockfish"]
fn fairy_stockfish_plays_through() {
    let engine = "/usr/games/fairy-stockfish";
    assert!(
        std::path::Path::new(engine).exists(),
        "{engine} is not installed: apt-get install fairy-stockfish"
    );
    let args = [
        "--game",
        "ouk-chatrang",
        "--b",
        "1",
        "--games",
        "2",
        "--uci",
        engine,
        "--uci-depth",
        "1",
    ];
    let (_, report) = arena("fairy", &args);
    let m = only_match(&report, 2);
    assert_eq!(m["a"]["kind"], "uci");
    assert!(m["summary"]["think_ms_a"]["moves"].as_u64() > Some(0));
}

/// Games per pair of levels in the ladder: at 30, a level that scores 85% against the one below
/// falls under the asserted 95% lower bound of 50% about once in a hundred runs (89%, the lowest
/// score docs/bots.md measured for two-player Khan-Tsin, once in a thousand).
const LADDER_GAMES: &str = "30";

/// docs/bots.md's claim for two-player Khan-Tsin: every level scores at least 70% against the
/// level below it. Asserted within the statistics of 30 games a pair: the 95% Wilson interval of
/// the higher level's score lies above 50% (it is stronger) and reaches 70% (the documented figure
/// is not refuted). Each move takes its level's budget (level 5: 500 ms), which a debug build
/// spends on fewer playouts and the whole suite cannot afford: run it in a release build, on an
/// otherwise idle core, about 10 minutes (a debug build on a busy machine, where levels 2 to 4
/// all run out of time, scored 66.7% for level 4 against level 3 and failed):
/// `scripts/test --release --test arena_tool -- --ignored each_level_of_khan_tsin`.
#[test]
#[ignore = "about 10 minutes in a release build: scripts/test --release --test arena_tool -- --ignored each_level_of_khan_tsin"]
fn each_level_of_khan_tsin_beats_the_one_below() {
    let args = ["--game", "khan-tsin", "--ladder", "--games", LADDER_GAMES];
    let (markdown, report) = arena("ladder", &args);
    println!("{markdown}");
    let matches = report["matches"].as_array().expect("matches");
    let pairs: Vec<(u64, u64)> = matches
        .iter()
        .map(|m| {
            let level = |side: &str| m[side]["level"].as_u64().expect("a bot level");
            (level("a"), level("b"))
        })
        .collect();
    assert_eq!(pairs, [(1, 2), (2, 3), (3, 4), (4, 5)]);
    for m in matches {
        let s = &m["summary"];
        let (a, b) = (&m["a"]["level"], &m["b"]["level"]);
        let interval = &s["b_score_interval_pct"];
        let low = interval[0].as_f64().expect("the interval's low end");
        let high = interval[1].as_f64().expect("the interval's high end");
        assert!(
            low > 50.0,
            "level {b} is stronger than level {a}: {s}\n{markdown}"
        );
        assert!(
            high >= 70.0,
            "level {b} may score the documented 70% against level {a}: {s}\n{markdown}"
        );
    }
}
