//! Codex's trust in a hook, recorded the way Codex records it when a person trusts the hook in
//! its `/hooks`, so that `assent setup codex` leaves a hook Codex runs rather than one it skips
//! without a word.
//!
//! Codex keeps the trust in `config.toml` as `[hooks.state."KEY"] trusted_hash = "sha256:…"`,
//! where KEY is `<absolute hooks.json path>:pre_tool_use:<group index>:<entry index>`. The hash
//! (Codex's `command_hook_hash` and `version_for_toml`) is the SHA-256 of a normalised identity
//! of the entry, as compact JSON with every object's keys sorted:
//! `{"event_name":"pre_tool_use","hooks":[{"async":false,"command":…,"timeout":…,"type":"command"}],"matcher":…}`
//! (the timeout defaulted to 600, unset optional fields left out). Any change to the entry (its
//! command, its timeout, its matcher, its place) changes the hash or the key, and Codex then
//! skips the hook again until it is trusted anew; setup writes the new trust with the new entry.
//!
//! SHA-256 is written out here (a page of code, checked against the standard's test vectors)
//! rather than taken from a new dependency: it fingerprints a settings entry, it guards nothing.

use serde_json::Value;

/// The trust key of our entry at `group`/`entry` in the `hooks.json` at `path`.
pub fn key(hooks_json: &str, group: usize, entry: usize) -> String {
    format!("{hooks_json}:pre_tool_use:{group}:{entry}")
}

/// The hash Codex computes for a PreToolUse command entry in a group with `matcher`.
pub fn hash(matcher: Option<&str>, command: &str, timeout: Option<u64>) -> String {
    let mut handler = serde_json::Map::new();
    handler.insert("async".into(), Value::Bool(false));
    handler.insert("command".into(), Value::String(command.into()));
    handler.insert("timeout".into(), Value::from(timeout.unwrap_or(600).max(1)));
    handler.insert("type".into(), Value::String("command".into()));
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), Value::String("pre_tool_use".into()));
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
    if let Some(matcher) = matcher {
        identity.insert("matcher".into(), Value::String(matcher.into()));
    }
    // serde_json's map keeps keys sorted (no preserve_order here), as Codex sorts them.
    let text = Value::Object(identity).to_string();
    let digest = sha256(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The hash `config.toml` records as trusted for `key`, if any.
pub fn trusted_hash(config: &str, key: &str) -> Option<String> {
    let doc: toml_edit::DocumentMut = config.parse().ok()?;
    doc.get("hooks")?
        .get("state")?
        .get(key)?
        .get("trusted_hash")?
        .as_str()
        .map(str::to_string)
}

/// `config.toml` with `key` trusted at `hash`; `None` when it is already.
pub fn trust(config: &str, key: &str, hash: &str) -> Result<Option<String>, String> {
    if trusted_hash(config, key).as_deref() == Some(hash) {
        return Ok(None);
    }
    let mut doc: toml_edit::DocumentMut = config.parse().map_err(|e| format!("{e}"))?;
    let hooks = doc
        .entry("hooks")
        .or_insert_with(implicit_table)
        .as_table_like_mut()
        .ok_or("its `hooks` is not a table")?;
    let state = hooks
        .entry("state")
        .or_insert_with(implicit_table)
        .as_table_like_mut()
        .ok_or("its `hooks.state` is not a table")?;
    let entry = state
        .entry(key)
        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| format!("its `hooks.state.\"{key}\"` is not a table"))?;
    entry.insert("trusted_hash", toml_edit::value(hash));
    Ok(Some(doc.to_string()))
}

/// A table that gets no header of its own (`[hooks]` above `[hooks.state."…"]` says nothing).
fn implicit_table() -> toml_edit::Item {
    let mut table = toml_edit::Table::new();
    table.set_implicit(true);
    toml_edit::Item::Table(table)
}

/// SHA-256 (FIPS 180-4) of `data`.
fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut message = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bits.to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (slot, add) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *slot = slot.wrapping_add(add);
        }
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(data: &[u8]) -> String {
        sha256(data).iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn sha256_gives_the_standards_test_vectors() {
        for (input, want) in [
            (
                &b""[..],
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            ),
            (
                b"abc",
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
            (
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            ),
        ] {
            assert_eq!(hex(input), want, "{input:?}");
        }
        // Padding that spills into a second block.
        assert_eq!(
            hex(&[b'a'; 64]),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"
        );
    }

    #[test]
    fn the_hash_covers_command_timeout_and_matcher() {
        let base = hash(Some("*"), "/usr/bin/assent hook codex", Some(600));
        assert!(
            base.starts_with("sha256:") && base.len() == 7 + 64,
            "{base}"
        );
        assert_eq!(base, hash(Some("*"), "/usr/bin/assent hook codex", None));
        assert_ne!(base, hash(Some("*"), "/opt/assent hook codex", Some(600)));
        assert_ne!(
            base,
            hash(Some("*"), "/usr/bin/assent hook codex", Some(60))
        );
        assert_ne!(base, hash(None, "/usr/bin/assent hook codex", Some(600)));
    }

    #[test]
    fn trust_is_recorded_once_keeping_the_rest() {
        let key = key("/home/u/.codex/hooks.json", 0, 0);
        let text = "# mine\nmodel = \"x\"\n\n[features]\nhooks = true\n";
        let once = trust(text, &key, "sha256:aa")
            .expect("parses")
            .expect("changes");
        assert!(once.starts_with(text), "{once}");
        assert!(
            once.contains("[hooks.state.\"/home/u/.codex/hooks.json:pre_tool_use:0:0\"]"),
            "{once}"
        );
        assert_eq!(trusted_hash(&once, &key).as_deref(), Some("sha256:aa"));
        assert_eq!(trust(&once, &key, "sha256:aa"), Ok(None));
        let again = trust(&once, &key, "sha256:bb")
            .expect("parses")
            .expect("changes");
        assert_eq!(trusted_hash(&again, &key).as_deref(), Some("sha256:bb"));
        assert_eq!(again.matches("trusted_hash").count(), 1, "{again}");
        assert!(trust("hooks = 3\n", &key, "sha256:aa").is_err());
        assert_eq!(trusted_hash("[[[", &key), None);
    }
}
