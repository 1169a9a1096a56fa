{
  "targets": [
    {
      "target_name": "icmp_socket",
      "sources": ["icmp_socket.c"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-Werror=implicit-function-declaration"]
    }
  ]
}
