/*
 * ICMP sockets for the exporter's icmp prober. Node has no raw or ping sockets, so this addon opens
 * one (raw with CAP_NET_RAW, or the kernel's unprivileged ping socket), sets the options a probe needs,
 * and delivers each received datagram to JavaScript from the event loop through a uv_poll handle:
 * no thread, no blocking call.
 *
 * JavaScript API (wrapped by exporter/src/probers/shared/icmp-socket.ts):
 *   open({ family: 4|6, raw: bool, source?: string, ttl?: number, dontFragment?: bool, echoIdentifier?: number },
 *        onMessage(data: Buffer, from: string, hopLimit: number)) -> handle
 *   send(handle, data: Buffer, to: string)
 *   localPort(handle) -> number     (the echo identifier the kernel uses for a ping socket)
 *   close(handle)
 *   releaseFreeMemory() -> bool   (glibc's malloc_trim: gives the C heap's free pages back; false without glibc)
 *   acceptPending(fd, max) -> number[]   (the connections waiting in a listening socket's queue, non-blocking)
 * Errors are thrown as Error objects with `code` set to the errno name (EPERM, EACCES...).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/socket.h>
#include <unistd.h>

#include <node_api.h>
#include <uv.h>

typedef struct {
  int fd;
  int family;
  bool raw;
  bool closed;
  /* The struct outlives whichever comes last: libuv releasing the poll handle, or the GC the external. */
  bool handle_released;
  bool finalized;
  uv_poll_t poll;
  napi_env env;
  napi_ref on_message;
  napi_async_context async_context;
} icmp_socket;

static napi_value throw_errno(napi_env env, const char *what, int error) {
  const char *name = uv_err_name(-error);
  char message[256];
  snprintf(message, sizeof message, "%s: %s (%s)", what, strerror(error), name);
  napi_value code, text, exception;
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &text);
  napi_create_error(env, code, text, &exception);
  napi_set_named_property(env, exception, "code", code);
  napi_throw(env, exception);
  return NULL;
}

static napi_value throw_type(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

/* Fills `address` from text; false when the text is not an address of `family`. */
static bool parse_address(int family, const char *text, struct sockaddr_storage *address, socklen_t *length) {
  memset(address, 0, sizeof *address);
  if (family == 4) {
    struct sockaddr_in *v4 = (struct sockaddr_in *)address;
    v4->sin_family = AF_INET;
    *length = sizeof *v4;
    return inet_pton(AF_INET, text, &v4->sin_addr) == 1;
  }
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)address;
  v6->sin6_family = AF_INET6;
  *length = sizeof *v6;
  return inet_pton(AF_INET6, text, &v6->sin6_addr) == 1;
}

static bool get_string(napi_env env, napi_value value, char *buffer, size_t size) {
  size_t written;
  return napi_get_value_string_utf8(env, value, buffer, size, &written) == napi_ok;
}

static bool get_property(napi_env env, napi_value object, const char *name, napi_value *value) {
  bool present = false;
  napi_has_named_property(env, object, name, &present);
  if (!present) return false;
  napi_get_named_property(env, object, name, value);
  napi_valuetype type;
  napi_typeof(env, *value, &type);
  return type != napi_undefined && type != napi_null;
}

static void deliver(icmp_socket *socket, const unsigned char *data, size_t length, const char *from, int hop_limit) {
  napi_env env = socket->env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value callback, receiver, argv[3];
  napi_get_reference_value(env, socket->on_message, &callback);
  napi_get_global(env, &receiver);
  void *copy;
  napi_create_buffer_copy(env, length, data, &copy, &argv[0]);
  napi_create_string_utf8(env, from, NAPI_AUTO_LENGTH, &argv[1]);
  napi_create_int32(env, hop_limit, &argv[2]);
  napi_value result;
  /* make_callback, not call_function: promises resolved by the callback settle right after it. */
  if (napi_make_callback(env, socket->async_context, receiver, callback, 3, argv, &result) == napi_pending_exception) {
    napi_value exception;
    napi_get_and_clear_last_exception(env, &exception);
    napi_fatal_exception(env, exception);
  }
  napi_close_handle_scope(env, scope);
}

static void on_readable(uv_poll_t *poll, int status, int events) {
  icmp_socket *socket = poll->data;
  if (status < 0 || !(events & UV_READABLE) || socket->closed) return;
  unsigned char packet[65536];
  unsigned char control[256];
  for (;;) {
    struct sockaddr_storage from;
    struct iovec vector = {packet, sizeof packet};
    struct msghdr message = {0};
    message.msg_name = &from;
    message.msg_namelen = sizeof from;
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t received = recvmsg(socket->fd, &message, MSG_DONTWAIT);
    if (received < 0) return; /* EAGAIN: drained; other errors surface as a probe timeout */

    int hop_limit = -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
      bool ttl = header->cmsg_level == IPPROTO_IP && header->cmsg_type == IP_TTL;
      bool hops = header->cmsg_level == IPPROTO_IPV6 && header->cmsg_type == IPV6_HOPLIMIT;
      if (ttl || hops) memcpy(&hop_limit, CMSG_DATA(header), sizeof hop_limit);
    }

    const unsigned char *icmp = packet;
    size_t length = (size_t)received;
    if (socket->family == 4 && socket->raw) {
      /* A raw IPv4 socket hands over the IP header too: take the TTL from it and skip it. */
      if (length < 20) continue;
      size_t header_length = (size_t)(packet[0] & 0x0f) * 4;
      if (header_length < 20 || header_length > length) continue;
      hop_limit = packet[8];
      icmp += header_length;
      length -= header_length;
    }

    char address[INET6_ADDRSTRLEN] = "";
    if (from.ss_family == AF_INET) inet_ntop(AF_INET, &((struct sockaddr_in *)&from)->sin_addr, address, sizeof address);
    else if (from.ss_family == AF_INET6) inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&from)->sin6_addr, address, sizeof address);
    deliver(socket, icmp, length, address, hop_limit);
    if (socket->closed) return; /* the callback closed the socket */
  }
}

static void on_poll_closed(uv_handle_t *handle) {
  icmp_socket *socket = handle->data;
  socket->handle_released = true;
  if (socket->finalized) free(socket);
}

/* Stops polling and closes the descriptor; the struct is freed once libuv lets go of the handle. */
static void shut(icmp_socket *socket) {
  if (socket->closed) return;
  socket->closed = true;
  uv_poll_stop(&socket->poll);
  close(socket->fd);
  napi_delete_reference(socket->env, socket->on_message);
  napi_async_destroy(socket->env, socket->async_context);
  uv_close((uv_handle_t *)&socket->poll, on_poll_closed);
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  icmp_socket *socket = data;
  socket->finalized = true;
  /* Garbage collected without close(): release the descriptor. */
  shut(socket);
  if (socket->handle_released) free(socket);
}

static icmp_socket *unwrap(napi_env env, napi_value handle) {
  void *data = NULL;
  if (napi_get_value_external(env, handle, &data) != napi_ok || data == NULL) {
    napi_throw_type_error(env, NULL, "expected an ICMP socket handle");
    return NULL;
  }
  return data;
}

/* The socket of a call that takes only the socket handle, or NULL (unwrap throws for a handle that is not one). */
static icmp_socket *only_argument_socket(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  return argc < 1 ? NULL : unwrap(env, argv[0]);
}

static int set_int(int fd, int level, int name, int value) {
  return setsockopt(fd, level, name, &value, sizeof value);
}

/*
 * A raw socket receives a copy of every ICMP message the host receives. With one socket per probe in flight
 * that is one copy per probe for each reply: the CPU grows with the square of the probes in flight and the
 * socket buffers overflow, dropping the replies the probes wait for. This kernel filter keeps only the echo
 * replies that carry the probe's identifier, as the kernel does for a ping socket by itself. A raw IPv4
 * socket sees the IP header before the ICMP message; a raw IPv6 socket sees the ICMPv6 message only.
 */
static int attach_echo_reply_filter(int fd, int family, uint16_t identifier) {
  struct sock_filter code[] = {
      family == 4 ? (struct sock_filter)BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0) : (struct sock_filter)BPF_STMT(BPF_LDX | BPF_IMM, 0),
      BPF_STMT(BPF_LD | BPF_B | BPF_IND, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, family == 4 ? 0 : 129, 0, 3),
      BPF_STMT(BPF_LD | BPF_H | BPF_IND, 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, identifier, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
      BPF_STMT(BPF_RET | BPF_K, 0),
  };
  struct sock_fprog program = {sizeof code / sizeof code[0], code};
  return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program);
}

static napi_value open_socket(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2) return throw_type(env, "open(options, onMessage) takes two arguments");
  napi_valuetype callback_type;
  napi_typeof(env, argv[1], &callback_type);
  if (callback_type != napi_function) return throw_type(env, "onMessage must be a function");

  napi_value value;
  int32_t family = 4;
  if (get_property(env, argv[0], "family", &value)) napi_get_value_int32(env, value, &family);
  if (family != 4 && family != 6) return throw_type(env, "family must be 4 or 6");
  bool raw = false;
  if (get_property(env, argv[0], "raw", &value)) napi_get_value_bool(env, value, &raw);
  int32_t ttl = 0;
  if (get_property(env, argv[0], "ttl", &value)) napi_get_value_int32(env, value, &ttl);
  bool dont_fragment = false;
  if (get_property(env, argv[0], "dontFragment", &value)) napi_get_value_bool(env, value, &dont_fragment);
  int32_t echo_identifier = -1;
  if (get_property(env, argv[0], "echoIdentifier", &value)) napi_get_value_int32(env, value, &echo_identifier);
  if (echo_identifier > 0xffff) return throw_type(env, "echoIdentifier must be a 16-bit number");
  char source[INET6_ADDRSTRLEN + 1] = "";
  if (get_property(env, argv[0], "source", &value) && !get_string(env, value, source, sizeof source)) {
    return throw_type(env, "source must be a string");
  }

  int domain = family == 4 ? AF_INET : AF_INET6;
  int protocol = family == 4 ? IPPROTO_ICMP : IPPROTO_ICMPV6;
  int fd = socket(domain, (raw ? SOCK_RAW : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
  if (fd < 0) return throw_errno(env, raw ? "raw ICMP socket" : "ping socket", errno);

  int failed = 0;
  const char *step = "";
  if (family == 4) {
    if (!raw && set_int(fd, IPPROTO_IP, IP_RECVTTL, 1) < 0) failed = errno, step = "IP_RECVTTL";
    if (!failed && ttl > 0 && set_int(fd, IPPROTO_IP, IP_TTL, ttl) < 0) failed = errno, step = "IP_TTL";
    if (!failed && dont_fragment && set_int(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO) < 0) {
      failed = errno, step = "IP_MTU_DISCOVER";
    }
  } else {
    if (set_int(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1) < 0) failed = errno, step = "IPV6_RECVHOPLIMIT";
    if (!failed && ttl > 0 && set_int(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, ttl) < 0) failed = errno, step = "IPV6_UNICAST_HOPS";
    if (!failed && dont_fragment && set_int(fd, IPPROTO_IPV6, IPV6_DONTFRAG, 1) < 0) failed = errno, step = "IPV6_DONTFRAG";
  }
  if (!failed && raw && echo_identifier >= 0 && attach_echo_reply_filter(fd, family, (uint16_t)echo_identifier) < 0) {
    failed = errno, step = "SO_ATTACH_FILTER";
  }
  if (!failed && (source[0] != '\0' || !raw)) {
    /* A ping socket is bound even without a source: binding assigns the identifier it echoes with. */
    struct sockaddr_storage address;
    socklen_t length;
    if (!parse_address(family, source[0] != '\0' ? source : (family == 4 ? "0.0.0.0" : "::"), &address, &length)) {
      close(fd);
      return throw_type(env, "source is not an address of the socket's family");
    }
    if (bind(fd, (struct sockaddr *)&address, length) < 0) failed = errno, step = "bind";
  }
  if (failed) {
    close(fd);
    return throw_errno(env, step, failed);
  }

  icmp_socket *socket = calloc(1, sizeof *socket);
  if (socket == NULL) {
    close(fd);
    return throw_errno(env, "allocating the socket", ENOMEM);
  }
  socket->fd = fd;
  socket->family = family;
  socket->raw = raw;
  socket->env = env;
  uv_loop_t *loop;
  napi_get_uv_event_loop(env, &loop);
  int status = uv_poll_init(loop, &socket->poll, fd);
  if (status < 0) {
    close(fd);
    free(socket);
    return throw_errno(env, "uv_poll_init", -status);
  }
  socket->poll.data = socket;
  napi_create_reference(env, argv[1], 1, &socket->on_message);
  napi_value resource, name;
  napi_create_object(env, &resource);
  napi_create_string_utf8(env, "ICMPSOCKET", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, resource, name, &socket->async_context);
  uv_poll_start(&socket->poll, UV_READABLE, on_readable);

  napi_value handle;
  napi_create_external(env, socket, finalize, NULL, &handle);
  return handle;
}

static napi_value send_packet(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 3) return throw_type(env, "send(handle, data, to) takes three arguments");
  icmp_socket *socket = unwrap(env, argv[0]);
  if (socket == NULL) return NULL;
  if (socket->closed) return throw_errno(env, "send", EBADF);
  void *data;
  size_t length;
  if (napi_get_buffer_info(env, argv[1], &data, &length) != napi_ok) return throw_type(env, "data must be a Buffer");
  char to[INET6_ADDRSTRLEN + 1];
  if (!get_string(env, argv[2], to, sizeof to)) return throw_type(env, "to must be a string");
  struct sockaddr_storage address;
  socklen_t address_length;
  if (!parse_address(socket->family, to, &address, &address_length)) {
    return throw_type(env, "to is not an address of the socket's family");
  }
  if (sendto(socket->fd, data, length, 0, (struct sockaddr *)&address, address_length) < 0) {
    return throw_errno(env, "sendto", errno);
  }
  return NULL;
}

static napi_value local_port(napi_env env, napi_callback_info info) {
  icmp_socket *socket = only_argument_socket(env, info);
  if (socket == NULL) return NULL;
  struct sockaddr_storage address;
  socklen_t length = sizeof address;
  if (getsockname(socket->fd, (struct sockaddr *)&address, &length) < 0) return throw_errno(env, "getsockname", errno);
  int port = address.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&address)->sin_port)
                                           : ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
  napi_value result;
  napi_create_int32(env, port, &result);
  return result;
}

static napi_value close_socket(napi_env env, napi_callback_info info) {
  icmp_socket *socket = only_argument_socket(env, info);
  if (socket == NULL) return NULL;
  shut(socket);
  return NULL;
}

/*
 * Not about ICMP: the one native call the exporter needs besides its sockets, kept in the one addon it ships.
 * glibc keeps the C heap's freed chunks mapped (only a free stretch at the very top goes back by itself), so
 * what start-up, a reload or a burst of TLS handshakes malloc'd stays in the process's RSS after V8 and
 * OpenSSL freed it. malloc_trim(0) returns every free page of every arena to the kernel (madvise DONTNEED).
 */
static napi_value release_free_memory(napi_env env, napi_callback_info info) {
  (void)info;
  bool trimmed = false;
#ifdef __GLIBC__
  malloc_trim(0);
  trimmed = true;
#endif
  napi_value result;
  napi_get_boolean(env, trimmed, &result);
  return result;
}

/*
 * Not about ICMP either: takes every connection waiting in a listening socket's accept queue, up to `max`, as
 * non-blocking descriptors. libuv accepts one connection per turn of the event loop, and a turn of a busy
 * exporter takes tens of milliseconds, so a burst of new connections (a Prometheus restart, a load generator)
 * waited seconds in the queue while the connections already accepted were served. Returns the descriptors
 * taken; stops at the first error other than an interrupted call or a connection aborted before it was taken.
 */
static napi_value accept_pending(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t fd, max;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 || napi_get_value_int32(env, argv[0], &fd) != napi_ok ||
      napi_get_value_int32(env, argv[1], &max) != napi_ok)
    return throw_type(env, "acceptPending(fd, max) takes two integers");
  napi_value accepted;
  napi_create_array(env, &accepted);
  uint32_t count = 0;
  while ((int32_t)count < max) {
    int connection = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (connection < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      break;
    }
    napi_value value;
    napi_create_int32(env, connection, &value);
    napi_set_element(env, accepted, count++, value);
  }
  return accepted;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor functions[] = {
      {"open", NULL, open_socket, NULL, NULL, NULL, napi_default, NULL},
      {"send", NULL, send_packet, NULL, NULL, NULL, napi_default, NULL},
      {"localPort", NULL, local_port, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, close_socket, NULL, NULL, NULL, napi_default, NULL},
      {"releaseFreeMemory", NULL, release_free_memory, NULL, NULL, NULL, napi_default, NULL},
      {"acceptPending", NULL, accept_pending, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof functions / sizeof functions[0], functions);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
