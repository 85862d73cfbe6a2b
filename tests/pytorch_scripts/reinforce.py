"""pytorch/examples reinforcement_learning/reinforce.py on a small deterministic chain
walk instead of gym's CartPole: a policy network gives action probabilities, actions are
drawn from ``torch.distributions.Categorical``, and each episode ends with one step of
Adam on -sum(log_prob(action) * normalized discounted return).

With ``rng`` the actions are drawn by inverting the policy's cumulative probabilities at
numpy uniforms (the same actions for both libraries); without it, by ``m.sample()``.
"""
from collections import deque

import numpy as np

from . import load_numpy_state, numpy_state


class ChainWalk:
    """States 0 .. n-1 in a row, observed one-hot; action 0 steps left, 1 steps right.
    Each step costs 0.1; reaching the right end pays 1 and ends the episode, as does
    running out of steps."""

    def __init__(self, n=6, max_steps=20):
        self.n, self.max_steps = n, max_steps

    def reset(self):
        self.position, self.steps = 0, 0
        return self._observe()

    def _observe(self):
        return np.eye(self.n, dtype=np.float32)[self.position]

    def step(self, action):
        self.position = min(max(self.position + (1 if action == 1 else -1), 0), self.n - 1)
        self.steps += 1
        arrived = self.position == self.n - 1
        reward = 1.0 if arrived else -0.1
        return self._observe(), reward, arrived or self.steps >= self.max_steps


def main(torch, episodes=40, gamma=0.99, lr=1e-2, state=None, rng=None, seed=0):
    nn, F = torch.nn, torch.nn.functional
    from_library = torch.distributions.Categorical

    class Policy(nn.Module):
        def __init__(self, n_states):
            super().__init__()
            self.affine1 = nn.Linear(n_states, 16)
            self.affine2 = nn.Linear(16, 2)
            self.saved_log_probs = []
            self.rewards = []

        def forward(self, x):
            x = F.relu(self.affine1(x))
            return F.softmax(self.affine2(x), dim=1)

    torch.manual_seed(seed)
    env = ChainWalk()
    policy = Policy(env.n)
    initial = numpy_state(policy)
    if state is not None:
        load_numpy_state(torch, policy, state)
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    eps = np.finfo(np.float32).eps.item()
    entropies = []

    def select_action(observation):
        observation = torch.from_numpy(observation).float().unsqueeze(0)
        probs = policy(observation)
        m = from_library(probs)
        if rng is None:
            action = m.sample()
        else:           # inverse CDF at a shared uniform: the same action in both libraries
            cdf = np.cumsum(probs.detach().numpy()[0])
            action = torch.tensor([int((rng.random() > cdf[:-1]).sum())])
        policy.saved_log_probs.append(m.log_prob(action))
        entropies.append(m.entropy().item())
        return action.item()

    def finish_episode():
        R = 0
        policy_loss = []
        returns = deque()
        for r in policy.rewards[::-1]:
            R = r + gamma * R
            returns.appendleft(R)
        returns = torch.tensor(list(returns))
        returns = (returns - returns.mean()) / (returns.std() + eps)
        for log_prob, R in zip(policy.saved_log_probs, returns):
            policy_loss.append(-log_prob * R)
        optimizer.zero_grad()
        policy_loss = torch.cat(policy_loss).sum()
        policy_loss.backward()
        optimizer.step()
        del policy.rewards[:]
        del policy.saved_log_probs[:]
        return policy_loss.item()

    losses, lengths, rewards = [], [], []
    for _ in range(episodes):
        observation, ep_reward = env.reset(), 0.0
        for t in range(1, env.max_steps + 1):
            action = select_action(observation)
            observation, reward, done = env.step(action)
            policy.rewards.append(reward)
            ep_reward += reward
            if done:
                break
        lengths.append(t)
        rewards.append(ep_reward)
        losses.append(finish_episode())
    return {"losses": losses, "lengths": lengths, "rewards": rewards, "entropies": entropies,
            "state": initial}
