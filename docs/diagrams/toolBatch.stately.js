import { createMachine } from 'xstate';

const toolBatchMachine = createMachine({
  "id": "toolBatch",
  "invoke": {
    "id": "scopeWatch",
    "src": "watchScope",
    "onError": {
      "actions": []
    }
  },
  "on": {
    "PREPARED_INPUT": {
      "actions": {
        "type": "recordPreparedInput"
      }
    },
    "call.report": {
      "actions": "recordReport"
    },
    "ABORT": {
      "guard": "isLive",
      "actions": [
        "markAborted",
        "abortStartedCalls"
      ]
    },
    "INTERNAL_ERROR": {
      "target": ".failed",
      "actions": "recordFailure"
    },
    "call.error": {
      "actions": "markCrashed"
    }
  },
  "entry": [
    "openScope",
    "releaseOnStop"
  ],
  "initial": "scheduling",
  "states": {
    "scheduling": {
      "always": [
        {
          "guard": "allCommitted",
          "target": "finishing"
        },
        {
          "guard": "cursorCrashed",
          "target": "skippingCrashed"
        },
        {
          "guard": "mayStart",
          "target": "classifying"
        },
        {
          "guard": "canCommit",
          "target": "committing"
        },
        {
          "guard": "drainedAfterAbort",
          "target": "abandoning"
        },
        {
          "guard": "shouldSuspend",
          "target": "suspending"
        },
        {
          "target": "waiting"
        }
      ]
    },
    "waiting": {
      "on": {
        "call.report": {
          "target": "scheduling",
          "actions": "recordReport"
        },
        "ABORT": {
          "guard": "isLive",
          "target": "scheduling",
          "actions": [
            "markAborted",
            "abortStartedCalls"
          ]
        },
        "call.error": {
          "target": "scheduling",
          "actions": "markCrashed"
        }
      }
    },
    "classifying": {
      "entry": "classifyNext",
      "on": {
        "ABORT": {
          "guard": "isLive",
          "target": "scheduling",
          "actions": [
            "markAborted",
            "abortStartedCalls"
          ]
        },
        "classify.done": {
          "guard": "classifiesNext",
          "target": "placing",
          "actions": {
            "type": "recordMode"
          }
        },
        "classify.error": {
          "guard": "classifiesNext",
          "target": "placing",
          "actions": {
            "type": "recordMode",
            "params": {
              "mode": "exclusive"
            }
          }
        }
      }
    },
    "placing": {
      "always": [
        {
          "guard": "cursorCrashed",
          "target": "skippingCrashed"
        },
        {
          "guard": "nextFits",
          "target": "starting"
        },
        {
          "guard": "canCommit",
          "target": "committing"
        },
        {
          "guard": "shouldSuspend",
          "target": "suspending"
        },
        {
          "target": "waiting"
        }
      ]
    },
    "starting": {
      "entry": [
        "startCall",
        "startSteppedCall",
        "markStarted"
      ],
      "always": "waiting"
    },
    "committing": {
      "entry": "commitSteppedCall",
      "on": {
        "call.done": {
          "guard": "isCursorCall",
          "target": "scheduling",
          "actions": [
            {
              "type": "commitResult"
            },
            "advanceCursor"
          ]
        },
        "call.error": {
          "target": "scheduling",
          "actions": "markCrashed"
        }
      }
    },
    "skippingCrashed": {
      "entry": [
        "commitCrashed",
        "advanceCursor"
      ],
      "always": "scheduling"
    },
    "abandoning": {
      "entry": "appendAbortedPairs",
      "always": "finishing"
    },
    "finishing": {
      "entry": "requestFinish",
      "on": {
        "FINISH": "done"
      }
    },
    "suspending": {
      "entry": [
        "recordSuspension",
        "releaseWaitingCalls"
      ],
      "always": "suspended"
    },
    "suspended": {
      "type": "final"
    },
    "failed": {
      "type": "final"
    },
    "done": {
      "type": "final"
    }
  }
});
