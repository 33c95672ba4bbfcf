import { describe, expect, it } from "vitest";
import { FleetSlots } from "../../durable-objects/dispatcher/fleet-slots.ts";

describe("FleetSlots", () => {
  it("sums the live nodes' offers per class, a node's later offer replacing its earlier one", () => {
    const fleet = new FleetSlots();
    fleet.offer("speech", "big", 3, 0);
    fleet.offer("speech", "small", 1, 0);
    fleet.offer("render", "renderer", 2, 0);
    expect(fleet.total("speech", 0, 0)).toBe(4);
    fleet.offer("speech", "big", 5, 10);
    expect(fleet.total("speech", 10, 0)).toBe(6);
    expect(fleet.total("render", 10, 0)).toBe(2);
  });

  it("drops a node not heard from since the stale mark; a heartbeat keeps it", () => {
    const fleet = new FleetSlots();
    fleet.offer("speech", "busy", 2, 0);
    fleet.offer("speech", "gone", 3, 0);
    fleet.seen("busy", 50_000);
    expect(fleet.total("speech", 70_000, 10_000)).toBe(2);
  });
});
