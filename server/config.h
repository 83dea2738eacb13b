// sinewd's configuration: defaults, then SINEW_* environment variables, then flags. Every option and
// every limit (server_limits.h) has both; --help lists them all with their defaults.
#ifndef SINEW_SERVER_CONFIG_H
#define SINEW_SERVER_CONFIG_H

#include "server_limits.h"
#include "log.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct server_config
{
	char host[64];       // listen address of both listeners
	int tcp_port;        // varint-delimited protobuf; 0: any free port
	int ws_port;         // HTTP and WebSocket; 0: any free port; -1: no HTTP/WebSocket listener
	char port_file[512]; // if set, "tcp=PORT\nws=PORT\n" is written there once both are bound
	char token[128];     // if set, required at the handshake
	// Directory served at / on the HTTP port (the dashboard). "": not given, sinewd looks for the bundle
	// next to its own binary (config_find_web_root); "none": nothing is served at / (404).
	char web_root[512];
	char state_dir[512]; // kept worlds written there and restored at start (persist.h); "": none
	// Folders (colon-separated, like ROS_PACKAGE_PATH) where LoadUrdf finds models by name and package://
	// mesh files: SINEW_MODEL_PATH or --model-path; "": none.
	char model_path[4096];
	bool demo;               // start with the demo world
	char demo_model[512];    // URDF of the demo robot; "": the embedded models/sinew_arm.urdf
	bool allow_demo_destroy; // clients may destroy the demo world (default: ERR_PROTECTED)
	log_level log_level;
	int workers; // threads that step worlds; 0: one per core
	server_limits limits;
} server_config;

void config_default(server_config* config);

// Apply SINEW_* variables from the environment. Returns false with a reason in error on a bad value.
bool config_from_env(server_config* config, char* error, size_t error_capacity);

// Apply flags. Returns 0 to run, 1 if --help was given (help printed to out), -1 on a bad flag (reason
// in error).
int config_from_args(server_config* config, int argc, char** argv, FILE* out, char* error, size_t error_capacity);

void config_print_help(FILE* out);

// Make every folder of the model path absolute (relative ones from the current directory): the server
// compares paths against them (a model's files must stay inside). Folders that do not exist are kept
// as given. False if the result does not fit.
bool config_absolute_model_path(server_config* config);

// When no web root was given: the dashboard bundle of the build tree sinewd was built in
// (<dir of sinewd>/../clients/web/dist) or of an install (<dir of sinewd>/../share/sinew/web), the first
// that holds an index.html, into config->web_root. `exe` is sinewd's own path (/proc/self/exe). Returns
// true if one was found; `looked` gets the places tried either way (for the log).
bool config_find_web_root(server_config* config, const char* exe, char* looked, size_t looked_capacity);

#endif
