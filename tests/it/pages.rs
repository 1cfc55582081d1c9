//! The GitHub Pages workflow (`.github/workflows/pages.yml`): valid YAML whose steps are the
//! project's own scripts (`.ci/setup`, `.ci/build-site`) and GitHub's Pages actions, with the
//! permissions a Pages deployment needs; the build script uses only tools `.ci/setup` installs.

use serde_yaml::Value;

fn repo(rel: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

#[test]
fn pages_workflow_builds_with_the_projects_own_steps() {
    let wf: Value = serde_yaml::from_str(&repo(".github/workflows/pages.yml")).expect("valid YAML");
    let perms = &wf["permissions"];
    assert_eq!(perms["pages"], "write");
    assert_eq!(perms["id-token"], "write");
    let allowed_actions = [
        "actions/checkout@",
        "actions/cache@",
        "actions/upload-pages-artifact@",
        "actions/deploy-pages@",
    ];
    let mut runs = Vec::new();
    let jobs = wf["jobs"].as_mapping().unwrap();
    assert!(jobs.len() >= 2, "a build job and a deploy job");
    for (_, job) in jobs {
        for step in job["steps"].as_sequence().unwrap() {
            if let Some(u) = step["uses"].as_str() {
                assert!(
                    allowed_actions.iter().any(|a| u.starts_with(a)),
                    "unexpected action {u}"
                );
            }
            if let Some(r) = step["run"].as_str() {
                runs.push(r.to_string());
            }
        }
    }
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs[0].ends_with("bash .ci/setup"), "{}", runs[0]);
    assert!(
        runs[1].starts_with("bash .ci/build-site \"/"),
        "{}",
        runs[1]
    );
    let uploads: Vec<String> = jobs
        .iter()
        .flat_map(|(_, j)| j["steps"].as_sequence().unwrap().clone())
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-pages-artifact@"))
        })
        .map(|s| s["with"]["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(uploads, ["dist"]);
    // The build script runs trunk and nothing that downloads; .ci/setup installs trunk.
    let build = repo(".ci/build-site");
    assert!(build.contains("trunk build --release --offline --public-url"));
    for banned in ["curl", "wget", "cargo install", "apt-get"] {
        assert!(!build.contains(banned), "{banned} in .ci/build-site");
    }
    let setup = repo(".ci/setup");
    assert!(setup.contains("cargo install --locked trunk"));
    assert!(setup.contains("SITE_ONLY"));
}
