//! A connection waiting for its held request: it hears the outcome when the request ends,
//! ends it at its deadline, and watches the socket meanwhile, where only a `Cancel` or the
//! terminal prompt's `Prompted` answer of that request is accepted.

use assent_client::CodecError;
use assent_client::codec::decode_request;
use assent_client::protocol::{Decided, Request, Response};
use tokio::time::sleep_until;

use super::{Conn, Flow};
use crate::error::RequestError;
use crate::pending::Held;

/// The largest packet a connection waiting for its held request accepts (a `Cancel`).
const WAITING_PACKET_MAX: usize = 512;

impl Conn {
    /// Wait, when its requester waits for it, for a held request to end, while watching the
    /// connection: a `Cancel` or the peer leaving withdraws it. `reply` turns every item's
    /// outcome (`None`: the request vanished unsettled, a bug) into the response.
    pub(super) async fn wait(
        &mut self,
        held: Option<Held>,
        reply: impl FnOnce(Option<Vec<Decided>>) -> Response,
    ) -> Flow {
        let Some(Held {
            token,
            expires_at,
            outcome: Some(mut outcome),
            ..
        }) = held
        else {
            return Flow::Continue;
        };
        let token = token.as_str();
        let mut timed_out = false;
        // Enough for a Cancel; anything larger arrives truncated and is refused.
        let mut small = [0u8; WAITING_PACKET_MAX];
        loop {
            tokio::select! {
                decided = &mut outcome => {
                    self.send(&reply(decided.ok())).await;
                    return Flow::Continue;
                }
                _ = sleep_until(expires_at), if !timed_out => {
                    // Whoever ended it (us, or an answer in the same instant) sends the outcome.
                    self.shared.pending.expire(token);
                    timed_out = true;
                }
                received = self.socket.recv(&mut small) => {
                    let request = match received {
                        Ok(info) if info.truncated() => Err(CodecError::TooLarge { len: info.bytes_read() }),
                        Ok(info) if info.bytes_read() > 0 => decode_request(&small[..info.bytes_read()]),
                        _ => {
                            let _ = self.shared.pending.cancel(token, self.peer.uid, "the requester disconnected");
                            return Flow::Close;
                        }
                    };
                    match request {
                        Ok(Request::Cancel { token: t }) if t == token => {
                            let _ = self.shared.pending.cancel(token, self.peer.uid, "withdrawn by the requester");
                        }
                        Ok(Request::Prompted { token: t, allow, remember }) if t == token => {
                            let terminal = self.peer.at_its_terminal();
                            match self.shared.pending.prompted(token, self.id, terminal, allow) {
                                // The outcome arrives on `outcome` next round.
                                // A person at the terminal chose; what could not be
                                // remembered is logged and shows in status.
                                Ok(approved) => {
                                    let _ = self.remember(&approved, remember).await;
                                }
                                Err(error) => self.send(&Response::Error(error.to_wire())).await,
                            }
                        }
                        Ok(_) => {
                            let error = RequestError::Invalid(
                                "this connection waits for its held request; only Cancel and Prompted are accepted".into(),
                            );
                            self.send(&Response::Error(error.to_wire())).await;
                        }
                        Err(error) => {
                            let _ = self.shared.pending.cancel(token, self.peer.uid, "the requester broke the protocol");
                            return self.reject(error).await;
                        }
                    }
                }
            }
        }
    }
}
