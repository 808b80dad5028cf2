//! `Explain`: the judgement of one subject without deciding anything (nothing held, counted
//! or audited), with the commands the analyser saw, fitted to one packet.

use assent_client::codec;
use assent_client::protocol::{ExplainRequest, Explanation, Response};

use super::Conn;
use super::check::verdict;
use crate::judge::MAX_COMMANDS_ON_WIRE;

impl Conn {
    pub(super) async fn explain(&self, explain: ExplainRequest) -> Response {
        let judgement = match self
            .asker()
            .judge(
                self.shared.policy.for_origin(explain.origin),
                explain.subject,
                explain.origin,
                explain.context,
            )
            .await
        {
            Ok((judgement, _, _)) => judgement,
            Err(error) => return Response::Error(error.to_wire()),
        };
        let mut explanation = Explanation {
            verdict: verdict(&judgement, None, None),
            commands: judgement
                .analysis
                .commands
                .iter()
                .take(MAX_COMMANDS_ON_WIRE)
                .map(|c| c.to_wire())
                .collect(),
        };
        // The list of commands is the part that can be left short to fit one packet.
        while !explanation.commands.is_empty()
            && codec::encode_response(&Response::Explained(explanation.clone())).is_err()
        {
            explanation
                .commands
                .truncate(explanation.commands.len() / 2);
        }
        Response::Explained(explanation)
    }
}
