// The session's handling of `resize`, kept beside the terminal code rather than in
// session.cpp: a terminal child's new window size, set on the helper's copy of its
// master (the kernel then signals SIGWINCH to the terminal's foreground group), or on
// its pseudo console (Windows: ResizePseudoConsole).
#include "pty/terminal.hpp"
#include "session/session.hpp"

namespace spawnhost {

void session::handle(resize_request&& r) {
  child* c = find_child(r.id, "resize");
  if (!c) return;
  if (!c->terminal()) return channel_.send(encode::error(r.id, false, "bad_field: resize: child " + std::to_string(r.id) + " has no terminal"));
  const std::error_code ec = resize_terminal(c->terminal().get(), r.cols, r.rows);
  // After the child's exit the terminal may be gone with it (ESRCH: a Windows console
  // is closed as soon as its child exits, maybe before the session saw the exit);
  // nothing to report then. Before, a failure is the terminal's (wine's
  // ResizePseudoConsole: E_NOTIMPL), told to Node as a non-fatal error on the child:
  // "resize: <code>: <text>" (js/src/pty/terminal.js).
  if (ec && ec != std::errc::no_such_process && !c->exited()) channel_.send(encode::error(r.id, false, std::string("resize: ") + error_name(ec) + ": " + ec.message()));
}

}  // namespace spawnhost
