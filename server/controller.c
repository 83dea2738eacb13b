// A world's own controller (see controller.h).
#include "controller.h"

#include "log.h"

#include <stddef.h>

void controller_step(world_controller* c, sn_world* world)
{
	if (c->drive != NULL && !c->yielded)
	{
		c->drive(c->context, world);
	}
}

void controller_take(world_controller* c, sn_world* world, uint64_t world_id)
{
	if (c->drive == NULL || c->yielded)
	{
		return;
	}
	if (c->hold != NULL)
	{
		c->hold(c->context, world);
	}
	c->yielded = true;
	log_info("world controls taken", "world=%llu (its own motion stands by until a reset)",
			 (unsigned long long)world_id);
}

void controller_resume(world_controller* c)
{
	c->yielded = false;
}

void controller_free(world_controller* c)
{
	if (c->release != NULL)
	{
		c->release(c->context);
	}
	*c = (world_controller){ 0 };
}
