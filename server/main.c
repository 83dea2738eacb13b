// sinewd: parse the configuration, start the server on one libuv loop, run until SIGINT or SIGTERM.
#include "config.h"
#include "demo_world.h"
#include "log.h"
#include "persist.h"
#include "server.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_signal(uv_signal_t* handle, int signum)
{
	server* srv = handle->data;
	server_shutdown(srv, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

int main(int argc, char** argv)
{
	signal(SIGPIPE, SIG_IGN);
	server_config config;
	config_default(&config);
	char error[512];
	if (!config_from_env(&config, error, sizeof(error)))
	{
		fprintf(stderr, "sinewd: %s\n", error);
		return 2;
	}
	int parsed = config_from_args(&config, argc, argv, stdout, error, sizeof(error));
	if (parsed != 0)
	{
		if (parsed < 0)
		{
			fprintf(stderr, "sinewd: %s\n", error);
		}
		return parsed < 0 ? 2 : 0;
	}
	log_set_level(config.log_level);
	if (!config_absolute_model_path(&config))
	{
		fprintf(stderr, "sinewd: --model-path: too long once its folders are made absolute\n");
		return 2;
	}
	// The dashboard: the directory given, none, or the bundle found next to sinewd's own binary.
	if (strcmp(config.web_root, "none") == 0)
	{
		config.web_root[0] = '\0';
	}
	else if (config.web_root[0] == '\0' && config.ws_port >= 0)
	{
		char exe[512];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		char looked[1200];
		char quoted[1300];
		if (config_find_web_root(&config, exe, looked, sizeof(looked)))
		{
			log_info("dashboard found", "web_root=%s", log_quote(quoted, sizeof(quoted), config.web_root));
		}
		else
		{
			log_warn(
				"no dashboard bundle: / answers 404 (build it with scripts/build.sh release, or give --web-root DIR)",
				"looked_in=%s", log_quote(quoted, sizeof(quoted), looked));
		}
	}
	if (config.workers == 0)
	{
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		config.workers = cores > 0 ? (int)cores : 1;
	}
	// World steps run on libuv's thread pool: size it to the workers (before its first use).
	if (getenv("UV_THREADPOOL_SIZE") == NULL)
	{
		char size[16];
		snprintf(size, sizeof(size), "%d", config.workers);
		setenv("UV_THREADPOOL_SIZE", size, 1);
	}

	uv_loop_t loop;
	uv_loop_init(&loop);
	server srv;
	int status = 0;
	if (server_init(&srv, &loop, &config) != 0)
	{
		fprintf(stderr, "sinewd: out of memory\n");
		return 1;
	}
	if (persist_start(&srv) != 0)
	{
		status = 1;
		server_shutdown(&srv, "the state directory cannot be used");
	}
	else if (server_listen(&srv) != 0)
	{
		status = 1;
		server_shutdown(&srv, "could not start");
	}
	else if (config.demo && demo_world_create(&srv) != 0)
	{
		status = 1;
		server_shutdown(&srv, "could not build the demo world");
	}
	uv_signal_t sigint, sigterm;
	uv_signal_init(&loop, &sigint);
	uv_signal_init(&loop, &sigterm);
	sigint.data = &srv;
	sigterm.data = &srv;
	uv_signal_start(&sigint, on_signal, SIGINT);
	uv_signal_start(&sigterm, on_signal, SIGTERM);
	// The signal handlers alone do not keep the loop running: it ends when the server has closed all.
	uv_unref((uv_handle_t*)&sigint);
	uv_unref((uv_handle_t*)&sigterm);

	uv_run(&loop, UV_RUN_DEFAULT);

	// Shut down already. Closing the handlers gives the signals back their default action (libuv), so a
	// further SIGTERM or SIGINT (a supervisor that repeats itself) would kill the process in its last frees
	// and make it exit with 128 + the signal: they are ignored from here on.
	uv_close((uv_handle_t*)&sigint, NULL);
	uv_close((uv_handle_t*)&sigterm, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	uv_run(&loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&loop) != 0)
	{
		log_warn("the loop still had handles at exit", "code=%d", 1);
	}
	server_free(&srv);
	return status;
}
