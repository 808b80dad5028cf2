//! The daemon side: one registered approver connection to `assentd`.
//!
//! After `RegisterApprover` the daemon pushes `Held` and `Withdrawn`, and answers each of our
//! `Answer`s with `Done` or `Error` in order. Pushes are never `Done` or `Error`, so a `Done` or
//! `Error` is always the reply to the oldest answer still waiting for one.

use std::collections::VecDeque;
use std::path::Path;

use assent_client::codec::{decode_response, encode_request};
use assent_client::protocol::{
    ApproverHello, MAX_MESSAGE_LEN, PendingItem, Request, Response, WireError, Withdrawn,
};
use tokio_seqpacket::UnixSeqpacket;

use crate::error::Error;
use crate::queue::Answer;

/// What the daemon sent.
#[derive(Debug)]
pub enum Pushed {
    /// A request this agent may answer was held.
    Held(Box<PendingItem>),
    /// A request ended.
    Withdrawn(Withdrawn),
    /// The reply to one of our answers.
    Replied(Answer, Result<(), WireError>),
}

/// A registered approver connection.
#[derive(Debug)]
pub struct Daemon {
    socket: UnixSeqpacket,
    buf: Vec<u8>,
    waiting: VecDeque<Answer>,
}

impl Daemon {
    /// Connect to `path` and register as approval agent `name`, saying whether the
    /// notification server shows `buttons` (`assent status` warns when it does not).
    pub async fn register(path: &Path, name: &str, buttons: bool) -> Result<Daemon, Error> {
        let socket = UnixSeqpacket::connect(path)
            .await
            .map_err(|source| Error::Connect {
                path: path.to_path_buf(),
                source,
            })?;
        let mut daemon = Daemon {
            socket,
            // One byte over the limit, so an oversized packet is seen, not silently cut.
            buf: vec![0; MAX_MESSAGE_LEN + 1],
            waiting: VecDeque::new(),
        };
        daemon
            .send(&Request::RegisterApprover(ApproverHello {
                name: name.into(),
                buttons: Some(buttons),
            }))
            .await?;
        match daemon.recv_response().await? {
            Response::Done => Ok(daemon),
            Response::Error(error) => Err(Error::Refused(error)),
            other => Err(Error::Unexpected(format!(
                "{other:?} instead of the registration's reply"
            ))),
        }
    }

    async fn send(&mut self, request: &Request) -> Result<(), Error> {
        let packet = encode_request(request)?;
        self.socket.send(&packet).await?;
        Ok(())
    }

    async fn recv_response(&mut self) -> Result<Response, Error> {
        let len = self.socket.recv(&mut self.buf).await?.bytes_read();
        if len == 0 {
            return Err(Error::Closed);
        }
        Ok(decode_response(&self.buf[..len])?)
    }

    /// Send one answer; its reply comes later through [`Daemon::recv`].
    pub async fn answer(&mut self, answer: Answer) -> Result<(), Error> {
        self.send(&Request::Answer {
            token: answer.token.clone(),
            allow: answer.allow,
            session: None,
            item: answer.item,
            remember: answer.remember,
        })
        .await?;
        self.waiting.push_back(answer);
        Ok(())
    }

    /// The next push or reply. Cancel-safe: a packet is consumed only when it is returned.
    pub async fn recv(&mut self) -> Result<Pushed, Error> {
        let response = self.recv_response().await?;
        match response {
            Response::Held(mut item) => {
                // Another uid's request (`[approvers]`) speaks of that user's files by name.
                assent_client::whose::seen_by(&mut item, assent_client::whose::own_uid());
                Ok(Pushed::Held(Box::new(item)))
            }
            Response::Withdrawn(withdrawn) => Ok(Pushed::Withdrawn(withdrawn)),
            Response::Done | Response::Error(_) => {
                let Some(answer) = self.waiting.pop_front() else {
                    return Err(Error::Unexpected(format!(
                        "{response:?} with no answer waiting for a reply"
                    )));
                };
                let result = match response {
                    Response::Error(error) => Err(error),
                    _ => Ok(()),
                };
                Ok(Pushed::Replied(answer, result))
            }
            other => Err(Error::Unexpected(format!("{other:?}"))),
        }
    }
}
