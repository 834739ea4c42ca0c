"""The sans-IO protocol: Lamport ordering, arbitration and tie rules, as a state machine.

`Replica` is fed received messages, its player's intents and the time; it returns
messages to broadcast and events. It imports the rules, never a socket or a clock.
"""

from p2pnerts.protocol._codec import MAX_FRAME, FrameDecoder, decode, decode_payload, encode
from p2pnerts.protocol._deal import audit, commitment, face_up
from p2pnerts.protocol._errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from p2pnerts.protocol._events import (
    AuditFailed,
    AuditPassed,
    Diverged,
    Event,
    PeerExcluded,
    PeerLeft,
    PeerRecovered,
    PeerRejoined,
    PeerSuspected,
    PlayCommitted,
    PlayInTheAir,
    PlayReturned,
    RoundOver,
    RoundStarted,
    ShutOut,
    ViewInstalled,
)
from p2pnerts.protocol._messages import (
    PROTOCOL_VERSION,
    Ack,
    Leave,
    Message,
    Play,
    Ready,
    Rejoin,
    Reveal,
    StartView,
    ViewChange,
)
from p2pnerts.protocol._replica import Replica, order_key
from p2pnerts.protocol._views import Disk, Status, Timing

__all__ = [
    "MAX_FRAME",
    "PROTOCOL_VERSION",
    "Ack",
    "AuditFailed",
    "AuditPassed",
    "Disk",
    "Diverged",
    "Event",
    "FrameDecoder",
    "Leave",
    "LocalProtocolError",
    "Message",
    "PeerExcluded",
    "PeerLeft",
    "PeerRecovered",
    "PeerRejoined",
    "PeerSuspected",
    "Play",
    "PlayCommitted",
    "PlayInTheAir",
    "PlayReturned",
    "ProtocolError",
    "Ready",
    "Rejoin",
    "RemoteProtocolError",
    "Replica",
    "Reveal",
    "RoundOver",
    "RoundStarted",
    "ShutOut",
    "StartView",
    "Status",
    "Timing",
    "ViewChange",
    "ViewInstalled",
    "audit",
    "commitment",
    "decode",
    "decode_payload",
    "encode",
    "face_up",
    "order_key",
]
