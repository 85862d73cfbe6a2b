"""The PyTorch DQN tutorial (reinforcement_q_learning.py) on a small deterministic grid
instead of gym's CartPole: a replay memory of Transition namedtuples in a
collections.deque, policy and target networks (the target loaded with the policy's
state_dict, then softly updated with target_param.data.copy_(tau * param.data + (1 - tau)
* target_param.data) over the parameters, or over the state_dicts' values with
``soft_update="state_dict"``), Q(s, a) by q.gather(1, actions), next-state values by
target_net(...).max(1)[0].detach() written through a mask of non-final states,
nn.SmoothL1Loss, AdamW(amsgrad=True) and clip_grad_value_.

The tutorial's ``random.random()`` / ``random.sample`` / ``env.action_space.sample()``
draw from a numpy generator here, so both libraries explore and replay alike; the episode
durations must fall (the returns rise).
"""
import math
from collections import deque, namedtuple
from itertools import count

import numpy as np

from . import load_numpy_state, numpy_state

Transition = namedtuple('Transition', ('state', 'action', 'next_state', 'reward'))


class GridWorld:
    """A ``size`` x ``size`` grid, start top left, goal bottom right, observed as one-hot
    row and column. Actions: up, down, left, right (walls hold you in place). Each step
    costs 0.1; the goal pays 1 and ends the episode (terminated); ``max_steps`` steps end
    it too (truncated)."""

    def __init__(self, size=4, max_steps=30):
        self.size, self.max_steps = size, max_steps
        self.n_actions, self.n_observations = 4, 2 * size

    def reset(self):
        self.row, self.col, self.steps = 0, 0, 0
        return self._observe()

    def _observe(self):
        eye = np.eye(self.size, dtype=np.float32)
        return np.concatenate([eye[self.row], eye[self.col]])

    def step(self, action):
        d_row, d_col = [(-1, 0), (1, 0), (0, -1), (0, 1)][action]
        self.row = min(max(self.row + d_row, 0), self.size - 1)
        self.col = min(max(self.col + d_col, 0), self.size - 1)
        self.steps += 1
        terminated = self.row == self.col == self.size - 1
        reward = 1.0 if terminated else -0.1
        return self._observe(), reward, terminated, self.steps >= self.max_steps


class ReplayMemory(object):

    def __init__(self, capacity, rng):
        self.memory = deque([], maxlen=capacity)
        self.rng = rng

    def push(self, *args):
        """Save a transition"""
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return [self.memory[i] for i in self.rng.choice(len(self.memory), batch_size,
                                                        replace=False)]

    def __len__(self):
        return len(self.memory)


def main(torch, num_episodes=40, BATCH_SIZE=32, GAMMA=0.9, EPS_START=0.9, EPS_END=0.05,
         EPS_DECAY=200, TAU=0.01, LR=1e-3, soft_update="parameters", state=None, rng=None):
    if rng is None:
        rng = np.random.default_rng()
    nn, F = torch.nn, torch.nn.functional
    device = torch.device("cpu")

    class DQN(nn.Module):

        def __init__(self, n_observations, n_actions):
            super(DQN, self).__init__()
            self.layer1 = nn.Linear(n_observations, 64)
            self.layer2 = nn.Linear(64, 64)
            self.layer3 = nn.Linear(64, n_actions)

        def forward(self, x):
            x = F.relu(self.layer1(x))
            x = F.relu(self.layer2(x))
            return self.layer3(x)

    torch.manual_seed(0)
    env = GridWorld()
    policy_net = DQN(env.n_observations, env.n_actions).to(device)
    target_net = DQN(env.n_observations, env.n_actions).to(device)
    initial = numpy_state(policy_net)
    if state is not None:
        load_numpy_state(torch, policy_net, state)
    target_net.load_state_dict(policy_net.state_dict())
    optimizer = torch.optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
    memory = ReplayMemory(1000, rng)
    steps_done = 0

    def select_action(state):
        nonlocal steps_done
        sample = rng.random()
        eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
        steps_done += 1
        if sample > eps_threshold:
            with torch.no_grad():
                return policy_net(state).max(1).indices.view(1, 1)
        return torch.tensor([[int(rng.integers(env.n_actions))]], device=device,
                            dtype=torch.long)

    losses = []

    def optimize_model():
        if len(memory) < BATCH_SIZE:
            return
        transitions = memory.sample(BATCH_SIZE)
        batch = Transition(*zip(*transitions))
        non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)),
                                      device=device, dtype=torch.bool)
        non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
        state_batch = torch.cat(batch.state)
        action_batch = torch.cat(batch.action)
        reward_batch = torch.cat(batch.reward)

        state_action_values = policy_net(state_batch).gather(1, action_batch)
        next_state_values = torch.zeros(BATCH_SIZE, device=device)
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1)[0].detach()
        expected_state_action_values = (next_state_values * GAMMA) + reward_batch

        criterion = nn.SmoothL1Loss()
        loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_value_(policy_net.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())

    durations, returns = [], []
    for i_episode in range(num_episodes):
        state = torch.tensor(env.reset(), dtype=torch.float32, device=device).unsqueeze(0)
        total = 0.0
        for t in count():
            action = select_action(state)
            observation, reward, terminated, truncated = env.step(action.item())
            total += reward
            reward = torch.tensor([reward], device=device)
            done = terminated or truncated
            if terminated:
                next_state = None
            else:
                next_state = torch.tensor(observation, dtype=torch.float32,
                                          device=device).unsqueeze(0)
            memory.push(state, action, next_state, reward)
            state = next_state
            optimize_model()
            if soft_update == "parameters":
                pairs = zip(target_net.parameters(), policy_net.parameters())
            else:           # state_dict() tensors share the modules' storage
                pairs = zip(target_net.state_dict().values(), policy_net.state_dict().values())
            for target_param, param in pairs:
                target_param.data.copy_(TAU * param.data + (1 - TAU) * target_param.data)
            if done:
                durations.append(t + 1)
                returns.append(total)
                break

    with torch.no_grad():
        start = torch.tensor(env.reset(), device=device).unsqueeze(0)
        q_start = policy_net(start)[0].tolist()
    return {"durations": durations, "returns": returns, "losses": losses,
            "q_start": q_start, "target_state": {k: v.sum().item() for k, v in
                                                 target_net.state_dict().items()},
            "state": initial}
