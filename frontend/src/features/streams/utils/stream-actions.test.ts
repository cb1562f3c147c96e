import { describe, expect, it } from "vitest";

import type { StreamAction, StreamStatus } from "@/features/streams/types";
import { allowedActions, canOperate, isActive } from "@/features/streams/utils/stream-actions";

const sorted = (s: Set<StreamAction>) => [...s].sort();

describe("allowedActions", () => {
  it("offers start and reset only when nothing runs, stop and restart while a driver is wanted", () => {
    const expected: Record<StreamStatus, StreamAction[]> = {
      STOPPED: ["reset", "start"],
      FAILED: ["reset", "start"],
      STARTING: ["restart", "stop"],
      RUNNING: ["restart", "stop"],
      RESTARTING: ["restart", "stop"],
      STOPPING: ["stop"],
    };
    for (const [status, actions] of Object.entries(expected)) {
      expect(sorted(allowedActions(status as StreamStatus, "developer")), status).toEqual(actions);
      expect(sorted(allowedActions(status as StreamStatus, "admin")), status).toEqual(actions);
    }
  });

  it("never offers start (409) while a driver runs nor reset (409) unless STOPPED or FAILED", () => {
    for (const status of ["STARTING", "RUNNING", "RESTARTING", "STOPPING"] as const) {
      const a = allowedActions(status, "admin");
      expect(a.has("start"), status).toBe(false);
      expect(a.has("reset"), status).toBe(false);
    }
    for (const status of ["STOPPED", "FAILED"] as const) {
      expect(allowedActions(status, "admin").has("stop"), status).toBe(false);  // 409
    }
    expect(allowedActions("STOPPING", "admin").has("restart")).toBe(false);  // 409: it is being stopped
  });

  it("gives viewers, strangers and an unknown state nothing", () => {
    for (const status of ["STOPPED", "FAILED", "RUNNING"] as const) {
      expect(allowedActions(status, "viewer").size).toBe(0);
      expect(allowedActions(status, null).size).toBe(0);
    }
    expect(allowedActions(undefined, "admin").size).toBe(0);
    expect(allowedActions("SOMETHING_NEW" as StreamStatus, "admin").size).toBe(0);
  });
});

describe("canOperate and isActive", () => {
  it("lets developers and admins act", () => {
    expect([canOperate("admin"), canOperate("developer"), canOperate("viewer"), canOperate(null)]).toEqual([true, true, false, false]);
  });

  it("polls while a driver starts, runs, restarts or stops", () => {
    expect(["STARTING", "RUNNING", "RESTARTING", "STOPPING"].every((s) => isActive(s as StreamStatus))).toBe(true);
    expect([isActive("STOPPED"), isActive("FAILED"), isActive(undefined)]).toEqual([false, false, false]);
  });
});
