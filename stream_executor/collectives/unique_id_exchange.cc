#include "stream_executor/collectives/unique_id_exchange.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace stream_executor {
namespace {

// Closes the socket when it goes out of scope.
class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

int MillisLeft(absl::Time deadline) {
  return std::max<int64_t>(0, absl::ToInt64Milliseconds(deadline - absl::Now()));
}

absl::Status WaitFor(int fd, short events, absl::Time deadline,
                     const std::string& what) {
  pollfd p{fd, events, 0};
  const int ready = poll(&p, 1, MillisLeft(deadline));
  if (ready > 0) return absl::OkStatus();
  if (ready == 0) {
    return absl::DeadlineExceededError(absl::StrCat(what, ": timed out"));
  }
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

// Length-prefixed: 4 bytes of size, then the bytes.
absl::Status SendAll(int fd, const std::string& id, absl::Time deadline) {
  const uint32_t size = htonl(static_cast<uint32_t>(id.size()));
  std::string message(reinterpret_cast<const char*>(&size), 4);
  message += id;
  size_t sent = 0;
  while (sent < message.size()) {
    if (auto s = WaitFor(fd, POLLOUT, deadline, "sending the unique id");
        !s.ok()) {
      return s;
    }
    const ssize_t n = send(fd, message.data() + sent, message.size() - sent,
                           MSG_NOSIGNAL);
    if (n <= 0) return absl::UnavailableError("sending the unique id failed");
    sent += n;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReceiveBytes(int fd, size_t count,
                                         absl::Time deadline) {
  std::string bytes(count, '\0');
  size_t got = 0;
  while (got < count) {
    if (auto s = WaitFor(fd, POLLIN, deadline, "receiving the unique id");
        !s.ok()) {
      return s;
    }
    const ssize_t n = recv(fd, bytes.data() + got, count - got, 0);
    if (n <= 0) {
      return absl::UnavailableError(
          "rank 0 closed the connection before sending the unique id");
    }
    got += n;
  }
  return bytes;
}

absl::StatusOr<std::string> Serve(const RendezvousConfig& config,
                                  const std::string& id, absl::Time deadline) {
  Socket listener(socket(AF_INET, SOCK_STREAM, 0));
  if (listener.fd() < 0) return absl::InternalError("socket() failed");
  int one = 1;
  setsockopt(listener.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(config.port);
  if (bind(listener.fd(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) !=
          0 ||
      listen(listener.fd(), config.world_size) != 0) {
    return absl::UnavailableError(absl::StrCat(
        "rank 0 cannot listen on port ", config.port, ": ",
        std::strerror(errno)));
  }
  for (int served = 1; served < config.world_size; ++served) {
    absl::Status ready = WaitFor(listener.fd(), POLLIN, deadline, "");
    if (!ready.ok()) {
      return absl::DeadlineExceededError(absl::StrCat(
          "rank 0: only ", served - 1, " of ", config.world_size - 1,
          " other ranks connected to port ", config.port, " within ",
          absl::FormatDuration(config.timeout)));
    }
    Socket peer(accept(listener.fd(), nullptr, nullptr));
    if (peer.fd() < 0) return absl::InternalError("accept() failed");
    if (auto s = SendAll(peer.fd(), id, deadline); !s.ok()) return s;
  }
  return id;
}

absl::StatusOr<std::string> Fetch(const RendezvousConfig& config,
                                  absl::Time deadline) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = absl::StrCat(config.port);
  if (getaddrinfo(config.address.c_str(), port.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot resolve MASTER_ADDR '", config.address, "'"));
  }
  const sockaddr_in target = *reinterpret_cast<sockaddr_in*>(found->ai_addr);
  freeaddrinfo(found);
  // Rank 0 may not listen yet: retry until the deadline.
  while (true) {
    Socket s(socket(AF_INET, SOCK_STREAM, 0));
    if (connect(s.fd(), reinterpret_cast<const sockaddr*>(&target),
                sizeof(target)) == 0) {
      auto size = ReceiveBytes(s.fd(), 4, deadline);
      if (!size.ok()) return size.status();
      uint32_t n;
      std::memcpy(&n, size->data(), 4);
      return ReceiveBytes(s.fd(), ntohl(n), deadline);
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "rank ", config.rank, ": rank 0 at ", config.address, ":",
          config.port, " did not answer within ",
          absl::FormatDuration(config.timeout)));
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
}

absl::StatusOr<int> IntVariable(const char* name) {
  const char* value = std::getenv(name);
  int parsed;
  if (value == nullptr || !absl::SimpleAtoi(value, &parsed)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "environment variable ", name, " is ",
        value == nullptr ? "not set" : absl::StrCat("'", value, "'"),
        " (torchrun's RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)"));
  }
  return parsed;
}

}  // namespace

absl::StatusOr<RendezvousConfig> RendezvousConfigFromEnvironment(
    absl::Duration timeout) {
  RendezvousConfig config;
  config.timeout = timeout;
  auto rank = IntVariable("RANK");
  auto world = IntVariable("WORLD_SIZE");
  auto port = IntVariable("MASTER_PORT");
  for (const auto* s : {&rank, &world, &port}) {
    if (!s->ok()) return s->status();
  }
  config.rank = *rank;
  config.world_size = *world;
  config.port = *port;
  const char* address = std::getenv("MASTER_ADDR");
  if (address != nullptr) config.address = address;
  if (config.world_size < 1 || config.rank < 0 ||
      config.rank >= config.world_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RANK ", config.rank, " is not in [0, WORLD_SIZE ", config.world_size,
        ")"));
  }
  return config;
}

absl::StatusOr<std::string> ExchangeUniqueId(const RendezvousConfig& config,
                                             const std::string& id) {
  const absl::Time deadline = absl::Now() + config.timeout;
  if (config.world_size == 1) return id;
  if (config.rank == 0) return Serve(config, id, deadline);
  return Fetch(config, deadline);
}

}  // namespace stream_executor
