// The world sinewd starts with when run without --no-demo: the demo arm's pick-and-place (demo_scene.h),
// or the robot of --demo-model in a generic motion.
#ifndef SINEW_SERVER_DEMO_WORLD_H
#define SINEW_SERVER_DEMO_WORLD_H

#include <stdint.h>

struct server;

// Build the demo scene and host it in real time, ownerless and kept. Returns 0 or an error code.
int32_t demo_world_create(struct server* srv);

#endif
