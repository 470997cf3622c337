// The requests to end that come from outside the protocol, on either platform: the
// platform's os_io.hpp names the signals (termination_signal_numbers).
#pragma once
#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <system_error>
#include <utility>

#include "os_io.hpp"

namespace spawnhost {

class termination_signals {
 public:
  explicit termination_signals(asio::io_context& io) : signals_(io) {
    for (const int number : termination_signal_numbers) signals_.add(number);
  }

  // Calls `handler()` once, when one of the signals arrives.
  template <class Handler>
  void async_wait(Handler&& handler) {
    signals_.async_wait([h = std::forward<Handler>(handler)](std::error_code ec, int) mutable {
      if (!ec) h();
    });
  }

 private:
  asio::signal_set signals_;
};

}  // namespace spawnhost
