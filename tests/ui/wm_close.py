#!/usr/bin/python3
"""Asks X windows to close the way a window manager's close button does: a
WM_DELETE_WINDOW client message (Xvfb has no window manager to send one).

    wm_close.py WINDOW_ID...        (needs Debian's python3-xlib)
"""

import sys

from Xlib import X, display, protocol


def main() -> None:
    d = display.Display()
    wm_protocols = d.intern_atom("WM_PROTOCOLS")
    wm_delete = d.intern_atom("WM_DELETE_WINDOW")
    for arg in sys.argv[1:]:
        window = d.create_resource_object("window", int(arg))
        event = protocol.event.ClientMessage(
            window=window,
            client_type=wm_protocols,
            data=(32, [wm_delete, X.CurrentTime, 0, 0, 0]),
        )
        window.send_event(event, event_mask=X.NoEventMask)
    d.flush()


if __name__ == "__main__":
    main()
